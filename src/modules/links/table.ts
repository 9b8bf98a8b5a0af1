import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { projects } from '../projects/table';

export const LINK_STATUSES = ['active', 'paused', 'archived'] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

/**
 * Short links. Counters are maintained by the click flush so that reading a link never
 * aggregates clicks. `params` is a JSON object of strings.
 */
export const links = sqliteTable(
  'links',
  {
    id: text('id').primaryKey(),
    slug: text('slug').notNull(),
    destination: text('destination').notNull(),
    title: text('title'),
    status: text('status', { enum: LINK_STATUSES }).notNull().default('active'),
    params: text('params', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    projectId: text('project_id').references(() => projects.id, { onDelete: 'set null' }),
    clickCount: integer('click_count').notNull().default(0),
    uniqueCount: integer('unique_count').notNull().default(0),
    botCount: integer('bot_count').notNull().default(0),
    expiresAt: integer('expires_at'),
    clickLimit: integer('click_limit'),
    lastClickedAt: integer('last_clicked_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    // Slugs are case-sensitive (SQLite's default BINARY collation).
    uniqueIndex('links_slug_unique').on(t.slug),
    // One index per sort order, each ending in id so keyset paging has a total order.
    index('links_created_idx').on(t.createdAt, t.id),
    index('links_updated_idx').on(t.updatedAt, t.id),
    index('links_clicks_idx').on(t.clickCount, t.id),
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

export type LinkRow = typeof links.$inferSelect;
