import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { projects } from '../projects/table';
import type { Preview, Rule } from './rules';

export const LINK_STATUSES = ['active', 'paused', 'archived'] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

/** Short links. `params` is a JSON object of strings. Their click counters are in link_counters. */
export const links = sqliteTable(
  'links',
  {
    id: text('id').primaryKey(),
    slug: text('slug').notNull(),
    /**
     * The domain the link lives on (domains/table.ts). No foreign key on SQLite (a column added
     * with one must default to null): a domain is deleted only while no link is on it, checked in
     * the deleting transaction. PostgreSQL's column has the foreign key.
     */
    domainId: integer('domain_id').notNull(),
    destination: text('destination').notNull(),
    title: text('title'),
    status: text('status', { enum: LINK_STATUSES }).notNull().default('active'),
    params: text('params', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    projectId: text('project_id').references(() => projects.id, { onDelete: 'set null' }),
    expiresAt: integer('expires_at'),
    clickLimit: integer('click_limit'),
    /** Where an expired link or one past its click limit sends visitors instead of the 410 page. */
    fallbackUrl: text('fallback_url'),
    /** The status of the link's redirects: 301, 302, 307 or 308. */
    redirectStatus: integer('redirect_status').notNull().default(302),
    /** Whether the visitor's query parameters are added to the Location. */
    forwardQuery: integer('forward_query', { mode: 'boolean' }).notNull().default(false),
    /** argon2id of the link's password, or null: no password asked. */
    passwordHash: text('password_hash'),
    /** The link's rules (rules.ts), or null: none. */
    rules: text('rules', { mode: 'json' }).$type<Rule[]>(),
    /** What social-preview crawlers are shown, or null: they get the redirect. */
    preview: text('preview', { mode: 'json' }).$type<Preview>(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    // A slug is unique per domain; slugs are case-sensitive (SQLite's default BINARY collation).
    uniqueIndex('links_domain_slug_unique').on(t.domainId, t.slug),
    // One index per sort order, each ending in id so keyset paging has a total order.
    index('links_created_idx').on(t.createdAt, t.id),
    index('links_updated_idx').on(t.updatedAt, t.id),
    index('links_project_idx').on(t.projectId),
    index('links_destination_idx').on(t.destination),
  ],
);

/** Tags, many per link. */
export const linkTags = sqliteTable(
  'link_tags',
  {
    linkId: text('link_id')
      .notNull()
      .references(() => links.id, { onDelete: 'cascade' }),
    tag: text('tag').notNull(),
  },
  (t) => [primaryKey({ columns: [t.linkId, t.tag] }), index('link_tags_tag_idx').on(t.tag)],
);

/**
 * Each link's click counters, kept by the click writer's fold (counters.ts) so that reading a
 * link never aggregates clicks. A narrow row of their own, not columns of `links`: the fold
 * updates ~18,000 links at a time, and the wide row plus its sort index cost two to three times
 * as much per link (docs/decisions/2026-11-24-link-counters-table.md). WITHOUT ROWID in SQLite
 * (added by hand to the migration: drizzle has no word for it), so the link id is stored once.
 * One row per link, written with it (writes.ts insertLinks), gone with it by the foreign key's
 * cascade.
 */
export const linkCounters = sqliteTable(
  'link_counters',
  {
    linkId: text('link_id')
      .primaryKey()
      .references(() => links.id, { onDelete: 'cascade' }),
    /** Human clicks only. */
    clicks: integer('clicks').notNull().default(0),
    uniques: integer('uniques').notNull().default(0),
    bots: integer('bots').notNull().default(0),
    /** The newest human click, epoch ms; null before the first. */
    lastClickedAt: integer('last_clicked_at'),
    /**
     * Human visits answered with the link's fallback URL (expired, or past its click limit):
     * not clicks, counted apart so an owner sees the old link is still used. Added by the click
     * writer (counters.ts), never summed from raw clicks: nothing resets it.
     */
    fallbackVisits: integer('fallback_visits').notNull().default(0),
    /**
     * Where part of the link's history came from (imports/history): the source, when it was
     * first imported, how much history (`visits`, `daily`, `total`, `none`) and the clicks it
     * brought. Null on every link no import made or fed.
     */
    importedSource: text('imported_source'),
    importedAt: integer('imported_at'),
    importedHistory: text('imported_history'),
    importedClicks: integer('imported_clicks'),
  },
  // The "clicks" sort of the link list, ending in the id for keyset paging (listing.ts).
  (t) => [index('link_counters_clicks_idx').on(t.clicks, t.linkId)],
);

/** A `links` row as stored. */
export type LinkFields = typeof links.$inferSelect;

/** A link as its readers see it: its row and its counters (repo.ts joins them). */
export interface LinkRow extends LinkFields {
  clickCount: number;
  uniqueCount: number;
  botCount: number;
  lastClickedAt: number | null;
  fallbackCount: number;
  /** The counters' imported columns (importedOf); absent on a row made here: none. */
  importedSource?: string | null;
  importedAt?: number | null;
  importedHistory?: string | null;
  importedClicks?: number | null;
}

/**
 * The change feed of one SQLite file (links/changes.ts): every link write of any process adds a
 * row naming the links it touched, so a running service learns of links another process wrote
 * (`slink import` beside `slink serve`) and refreshes them in its slug index. `instance` is the
 * writing process: its own index follows its writes already. PostgreSQL's table of the same
 * name serves several nodes the same way.
 */
export const linkChanges = sqliteTable('link_changes', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  instance: text('instance').notNull(),
  /** The link ids, a JSON array. */
  ids: text('ids', { mode: 'json' }).$type<string[]>().notNull(),
  at: integer('at').notNull(),
});
