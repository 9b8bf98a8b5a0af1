import { sql } from 'drizzle-orm';
import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Folders for links. Names are unique without regard to case: "Ads" and "ads" would confuse people. */
export const projects = sqliteTable(
  'projects',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('projects_name_unique').on(sql`lower(${t.name})`)],
);

export type ProjectRow = typeof projects.$inferSelect;
