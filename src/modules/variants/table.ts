import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { links } from '../links/table';

/** Second addresses of a link: {short_host}/<slug>/<code>, params layered over the link's. */
export const variants = sqliteTable(
  'variants',
  {
    id: text('id').primaryKey(),
    linkId: text('link_id')
      .notNull()
      .references(() => links.id, { onDelete: 'cascade' }),
    // Case-sensitive like slugs.
    code: text('code').notNull(),
    params: text('params', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    clickCount: integer('click_count').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('variants_link_code_unique').on(t.linkId, t.code)],
);

export type VariantRow = typeof variants.$inferSelect;
