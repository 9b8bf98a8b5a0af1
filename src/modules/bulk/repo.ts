/** Bulk queries on links: each write is one transaction, so a batch lands whole or not at all. */
import { eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { type LinkRow, links, linkTags } from '../links/table';

/** The oldest link of each of these destinations. */
export function linkIdsByDestination(db: Db, destinations: string[]): Map<string, string> {
  if (destinations.length === 0) return new Map();
  const rows = db
    .select({ id: links.id, destination: links.destination })
    .from(links)
    .where(sql`${links.destination} IN (SELECT value FROM json_each(${JSON.stringify(destinations)}))`)
    .orderBy(links.createdAt, links.id)
    .all();
  const out = new Map<string, string>();
  for (const r of rows) if (!out.has(r.destination)) out.set(r.destination, r.id);
  return out;
}

export function insertLinks(db: Db, items: { row: LinkRow; tags: string[] }[]): void {
  db.transaction((tx) => {
    for (const { row, tags } of items) {
      tx.insert(links).values(row).run();
      if (tags.length)
        tx.insert(linkTags)
          .values(tags.map((tag) => ({ linkId: row.id, tag })))
          .run();
    }
  });
}

export function findLinkRows(db: Db, ids: string[]): LinkRow[] {
  if (ids.length === 0) return [];
  return db.select().from(links).where(inArray(links.id, ids)).all();
}

export function setLinkParams(
  db: Db,
  updates: { id: string; params: Record<string, string>; updatedAt: number }[],
): void {
  db.transaction((tx) => {
    for (const u of updates)
      tx.update(links).set({ params: u.params, updatedAt: u.updatedAt }).where(eq(links.id, u.id)).run();
  });
}

export function setLinkProjects(db: Db, moves: { id: string; updatedAt: number }[], projectId: string | null): void {
  db.transaction((tx) => {
    for (const m of moves) tx.update(links).set({ projectId, updatedAt: m.updatedAt }).where(eq(links.id, m.id)).run();
  });
}
