import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { links } from '../links/table';

/**
 * One row per redirect (human or bot), written by the click flush, already enriched.
 * The raw client address is never stored: `visitorHash` is a salted hash of address and
 * user agent for one UTC day (16 hex characters), enough to count unique visitors and nothing
 * more; `firstOfDay` marks a human visitor's first click of the day on the link (a unique).
 * `variantId` is null when the code in the address matched no variant; `variantCode` keeps
 * what was asked, so a deleted or renamed variant's past clicks report as unrecognised codes.
 */
export const clicks = sqliteTable(
  'clicks',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    linkId: text('link_id')
      .notNull()
      .references(() => links.id, { onDelete: 'cascade' }),
    timestamp: integer('timestamp').notNull(),
    variantId: text('variant_id'),
    variantCode: text('variant_code'),
    destination: text('destination').notNull(),
    params: text('params', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    country: text('country'),
    city: text('city'),
    device: text('device'),
    os: text('os'),
    browser: text('browser'),
    referrer: text('referrer'),
    trafficType: text('traffic_type'),
    language: text('language'),
    bot: integer('bot', { mode: 'boolean' }).notNull(),
    visitorHash: text('visitor_hash'),
    firstOfDay: integer('first_of_day', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [index('clicks_link_time_idx').on(t.linkId, t.timestamp, t.id)],
);

/**
 * Rollup buckets (rollups.ts): one row per scope (a link id, or '' for the workspace), grain
 * ('hour' or 'day', UTC), bucket start (epoch ms) and bot flag, with its clicks and uniques and
 * the breakdown packed as (value id, clicks) pairs. No foreign key: the workspace scope is no
 * link; a link's buckets are removed (and taken out of the workspace's) when it is deleted.
 */
export const rollupBuckets = sqliteTable(
  'rollup_buckets',
  {
    scope: text('scope').notNull(),
    grain: text('grain', { enum: ['hour', 'day'] }).notNull(),
    start: integer('start').notNull(),
    bot: integer('bot').notNull(),
    clicks: integer('clicks').notNull(),
    uniques: integer('uniques').notNull(),
    data: blob('data').$type<Uint8Array>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.grain, t.start, t.bot] })],
);

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

/**
 * Small named integers of the click writer. `folded_through`: the last raw click id whose
 * counts are in the rollups and counters (store.ts); a start folds the clicks after it.
 */
export const clickState = sqliteTable('click_state', {
  name: text('name').primaryKey(),
  value: integer('value').notNull(),
});

/**
 * One random salt per UTC day for visitor hashes. Salts older than yesterday are deleted by the
 * flush, after which the day's hashes can no longer be linked to any address.
 */
export const visitorSalts = sqliteTable('visitor_salts', {
  day: integer('day').primaryKey(),
  salt: text('salt').notNull(),
});
