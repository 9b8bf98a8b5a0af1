/**
 * The rollups module's tables: the buckets the statistics read, the breakdown value dictionary
 * they (and the raw clicks) refer to by id, and the per-link day marks.
 */
import { blob, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * Rollup buckets (rollups.ts): one row per scope (the link's `link` value id in rollup_values,
 * or 0 for the workspace), grain (0 = UTC hour, 1 = UTC day), bucket start (epoch ms) and bot
 * flag, with its clicks and uniques and the breakdown as varint (value id, clicks) pairs
 * (rollup-codec.ts). Integer keys and, in SQLite, WITHOUT ROWID (added by hand to the migration:
 * drizzle has no word for it): the key is stored once, in the table's own B-tree. No foreign
 * key: the workspace scope is no link; a link's buckets are removed (and taken out of the
 * workspace's) when it is deleted.
 */
export const rollups = sqliteTable(
  'rollups',
  {
    scope: integer('scope').notNull(),
    grain: integer('grain').notNull(),
    start: integer('start').notNull(),
    bot: integer('bot').notNull(),
    clicks: integer('clicks').notNull(),
    uniques: integer('uniques').notNull(),
    data: blob('data').$type<Uint8Array>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.grain, t.start, t.bot] })],
);

/**
 * Per link scope (link-days.ts): its day buckets are complete for every day before `days_before`
 * (epoch ms, a UTC day start); from that day on, its days are read as sums of its hour buckets,
 * which are always complete. A link without a row has no trusted day bucket.
 */
export const rollupMarks = sqliteTable('rollup_marks', {
  scope: integer('scope').primaryKey(),
  daysBefore: integer('days_before').notNull(),
});

/** The breakdown values rollup buckets refer to by id (rollup-values.ts). */
export const rollupValues = sqliteTable(
  'rollup_values',
  {
    id: integer('id').primaryKey(),
    dim: text('dim').notNull(),
    key: text('key').notNull(),
    value: text('value').notNull(),
  },
  (t) => [uniqueIndex('rollup_values_dim_key_value').on(t.dim, t.key, t.value)],
);
