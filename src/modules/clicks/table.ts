import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { links } from '../links/table';

/**
 * The first click table: one ~340-byte row per redirect. Nothing writes it any more (the raw
 * clicks live in click_tail and click_blocks below); it stays until a database that still holds
 * rows in it has been converted.
 *
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
 * One random salt per UTC day for visitor hashes. Salts older than yesterday are deleted by the
 * flush, after which the day's hashes can no longer be linked to any address.
 */
export const visitorSalts = sqliteTable('visitor_salts', {
  day: integer('day').primaryKey(),
  salt: text('salt').notNull(),
});

/**
 * Where clicks went, deduplicated: the variant id at click time ('' when the code matched no
 * variant), the code in the address (null without one), the Location's destination, the
 * effective params JSON and the index of the link rule that chose the destination (null: none). A link's clicks share a handful of these, so a raw click stores one
 * integer instead of the strings. `code` and `rule` stay nullable (null and a value are different facts);
 * SQLite treats nulls as distinct in a unique index, so the writer looks a target up with
 * `code IS ? AND rule IS ?` before inserting it, and is the only writer. A link's rows go with it
 * (deleteLinkClicks), so the id is AUTOINCREMENT: an id is never given to another row, even
 * after the row with the highest id was deleted, and readers may cache rows by id for good.
 */
export const clickTargets = sqliteTable(
  'click_targets',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    linkId: text('link_id').notNull(),
    variantId: text('variant_id').notNull().default(''),
    code: text('code'),
    destination: text('destination').notNull(),
    params: text('params').notNull(),
    rule: integer('rule'),
  },
  (t) => [uniqueIndex('click_targets_key').on(t.linkId, t.variantId, t.code, t.destination, t.params, t.rule)],
);

/**
 * Recent raw clicks, append only, in id order. Every text fact is an id: `link` and the
 * dimensions are rollup_values ids ('' = unknown), `target` a click_targets id. `visitor` is
 * the first 64 bits of the visitor hash as a signed integer; `flags` 1 = bot, 2 = first visit
 * of the UTC day. No secondary index: ids are assigned by the writer in write order (never
 * reused, the last one is kept in click_state), so every insert lands at the end of the tree.
 */
export const clickTail = sqliteTable('click_tail', {
  id: integer('id').primaryKey(),
  link: integer('link').notNull(),
  time: integer('time').notNull(),
  target: integer('target').notNull(),
  country: integer('country').notNull(),
  city: integer('city').notNull(),
  device: integer('device').notNull(),
  os: integer('os').notNull(),
  browser: integer('browser').notNull(),
  referrer: integer('referrer').notNull(),
  traffic: integer('traffic').notNull(),
  language: integer('language').notNull(),
  visitor: integer('visitor').notNull(),
  flags: integer('flags').notNull(),
});

/**
 * Sealed clicks: one row per (segment, link), the link's clicks of that segment packed column
 * by column (block-codec.ts). Segment numbers only grow, so sealing appends at the end of the
 * tree. The id and time ranges let a reader skip a block without decoding it.
 */
export const clickBlocks = sqliteTable(
  'click_blocks',
  {
    seg: integer('seg').notNull(),
    link: integer('link').notNull(),
    firstId: integer('first_id').notNull(),
    lastId: integer('last_id').notNull(),
    minTime: integer('min_time').notNull(),
    maxTime: integer('max_time').notNull(),
    count: integer('count').notNull(),
    data: blob('data').$type<Uint8Array>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.seg, t.link] })],
);

/** One row per sealed segment: its id and time ranges, so readers visit only the segments a window overlaps. */
export const clickSegments = sqliteTable('click_segments', {
  seg: integer('seg').primaryKey(),
  firstId: integer('first_id').notNull(),
  lastId: integer('last_id').notNull(),
  minTime: integer('min_time').notNull(),
  maxTime: integer('max_time').notNull(),
  count: integer('count').notNull(),
});

/**
 * Named integers of the click store: `last_id`, the newest click id ever assigned (ids are never
 * reused); `folded_through`, the last click id whose counts are in the rollups and counters
 * (store.ts), so a start folds the clicks after it.
 */
export const clickState = sqliteTable('click_state', {
  name: text('name').primaryKey(),
  value: integer('value').notNull(),
});

/**
 * Imported history waiting for the click writer (sqlite/imports.ts). On SQLite one writer, the
 * server's, owns the raw clicks and what it sums of them in memory; an import, in the server
 * or in `slink import` beside it, queues a link's visits or daily counts here in one short
 * transaction (durable then), and the writer takes them in queue order through its own path.
 * `kind` 0: visits, already enriched (`data` is imports.ts's JSON); 1: daily counts. A row goes
 * in the transaction that writes what it holds (visits: their raw clicks; days: the fold that
 * counts them), and with its link.
 */
export const clickImports = sqliteTable('click_imports', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  linkId: text('link_id')
    .notNull()
    .references(() => links.id, { onDelete: 'cascade' }),
  kind: integer('kind').notNull(),
  count: integer('count').notNull(),
  data: text('data').notNull(),
});

/**
 * Imported daily counts once counted (sqlite/imports.ts, and PostgreSQL's history writer): a
 * link's clicks of a UTC day (`start`, epoch ms) that a source gave only as a count. They have
 * no raw click, so a rebuild of the statistics from the raw clicks (rollups/sqlite/rebuild.ts)
 * adds them back from here. Written in the transaction that counts them; gone with the link.
 */
export const importedDays = sqliteTable(
  'imported_days',
  {
    linkId: text('link_id')
      .notNull()
      .references(() => links.id, { onDelete: 'cascade' }),
    start: integer('start').notNull(),
    clicks: integer('clicks').notNull(),
  },
  (t) => [primaryKey({ columns: [t.linkId, t.start] })],
);
