import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * The short domains links live on (docs/behaviour.md, "Short domains"). A small integer id, so
 * that a link names its domain in a few bytes and the slug index keys by (domain id, slug).
 * `host` is the lowercase (punycode) host name requests are routed by; `origin` is what short
 * URLs start with. The default domain is the one SLINK_SHORT_HOST names (domains/start.ts).
 * The migration that brought domains made a first row (id 1, host '') holding every existing
 * link, which the first start names after SLINK_SHORT_HOST: their short URLs do not change.
 */
export const domains = sqliteTable(
  'domains',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    host: text('host').notNull(),
    origin: text('origin').notNull(),
    isDefault: integer('is_default', { mode: 'boolean' }).notNull().default(false),
    /** Where `GET /` on the domain sends visitors, or null. */
    rootUrl: text('root_url'),
    /** Where an unknown slug on the domain sends visitors instead of the 404 page, or null. */
    notFoundUrl: text('not_found_url'),
    /** Where an expired or used-up link without its own fallback sends visitors instead of the 410 page, or null. */
    expiredUrl: text('expired_url'),
    /** An origin where an older service still answers this domain's unknown slugs, or null. */
    upstream: text('upstream'),
    /** `/.well-known/apple-app-site-association`, JSON text as given, or null: 404. */
    appleAppSiteAssociation: text('apple_app_site_association'),
    /** `/.well-known/assetlinks.json`, JSON text as given, or null: 404. */
    assetLinks: text('asset_links'),
    /** When a request for this host last arrived (written at most once a minute), or null: none yet. */
    lastSeenAt: integer('last_seen_at'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('domains_host_unique').on(t.host)],
);

export type DomainRow = typeof domains.$inferSelect;
