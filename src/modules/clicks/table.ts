import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { links } from '../links/table';

/**
 * One row per redirect (human or bot), written by the click flush, already enriched.
 * The raw client address is never stored: `visitorHash` is a salted hash of address and
 * user agent for one UTC day, enough to count unique visitors and nothing more.
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
 * Hourly rollups: one row per link, hour, bot flag and breakdown value, so that statistics
 * never scan raw clicks. `dim` is the breakdown ('total', 'country', 'param', ...); `key` is
 * only used by 'param' (the parameter name), '' otherwise. `uniques` counts first visits of
 * a UTC day, which makes it additive across hours.
 */
export const clickRollups = sqliteTable(
  'click_rollups',
  {
    linkId: text('link_id')
      .notNull()
      .references(() => links.id, { onDelete: 'cascade' }),
    hour: integer('hour').notNull(),
    bot: integer('bot', { mode: 'boolean' }).notNull(),
    dim: text('dim').notNull(),
    key: text('key').notNull().default(''),
    value: text('value').notNull(),
    clicks: integer('clicks').notNull().default(0),
    uniques: integer('uniques').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.linkId, t.hour, t.bot, t.dim, t.key, t.value] }),
    index('click_rollups_hour_idx').on(t.hour, t.dim),
  ],
);

/**
 * Which visitor hashes were already seen per link and UTC day (for uniques). Keyed by day
 * first so the flush can drop finished days with a range delete.
 */
export const visitorDays = sqliteTable(
  'visitor_days',
  {
    linkId: text('link_id')
      .notNull()
      .references(() => links.id, { onDelete: 'cascade' }),
    day: integer('day').notNull(),
    visitorHash: text('visitor_hash').notNull(),
  },
  (t) => [primaryKey({ columns: [t.day, t.linkId, t.visitorHash] })],
);

/**
 * One random salt per UTC day for visitor hashes. Salts older than yesterday are deleted by the
 * flush, after which the day's hashes can no longer be linked to any address.
 */
export const visitorSalts = sqliteTable('visitor_salts', {
  day: integer('day').primaryKey(),
  salt: text('salt').notNull(),
});
