/**
 * The raw clicks as stored, on either engine, for tests that check the API against what was
 * recorded: read back through each engine's own tables (SQLite: the click store's reader,
 * readClicksAfter; PostgreSQL: the tail, where every raw click is while nothing seals blocks there).
 */
import { openPostgres } from '../../src/db/postgres/client';
import { readClicksAfter } from '../../src/modules/clicks/sqlite/raw-read';
import type { TestApp } from './app';

export interface StoredClick {
  id: number;
  linkId: string;
  timestamp: number;
  /** 1 for a bot hit, else 0. */
  bot: number;
}

/** A short-lived pool on the test's PostgreSQL database (the app's own pool is not exposed). */
async function withPostgres<T>(t: TestApp, use: (sql: ReturnType<typeof openPostgres>) => Promise<T>): Promise<T> {
  const address = t.deps.stores.address;
  if (address.engine !== 'postgres') throw new Error('not a PostgreSQL test app');
  const sql = openPostgres(address.url, 1);
  try {
    return await use(sql);
  } finally {
    await sql.close();
  }
}

/** Every stored raw click (of one link, when given), in id order. */
export async function storedClicks(t: TestApp, linkId?: string): Promise<StoredClick[]> {
  if (t.deps.stores.engine === 'sqlite') {
    return readClicksAfter(t.deps.db.$client, 0, Number.MAX_SAFE_INTEGER)
      .filter((c) => linkId === undefined || c.linkId === linkId)
      .map((c) => ({ id: c.id, linkId: c.linkId, timestamp: c.time, bot: c.bot ? 1 : 0 }));
  }
  return withPostgres(t, async (sql) => {
    const rows = await sql`SELECT t.id, v.value AS "linkId", t.time, t.flags FROM click_tail t
      JOIN rollup_values v ON v.id = t.link ORDER BY t.id`;
    return rows
      .map((r: { id: string; linkId: string; time: string; flags: number }) => ({
        id: Number(r.id),
        linkId: r.linkId,
        timestamp: Number(r.time),
        bot: r.flags & 1,
      }))
      .filter((c: StoredClick) => linkId === undefined || c.linkId === linkId);
  });
}

/** Deletes raw clicks by id (recent ones: the tail); throws when one is not there. */
export async function deleteStoredClicks(t: TestApp, ids: number[]): Promise<void> {
  let deleted: number;
  if (t.deps.stores.engine === 'sqlite') {
    deleted = t.deps.db.$client
      .query(`DELETE FROM click_tail WHERE id IN (${ids.map(Number).join(',')})`)
      .run().changes;
  } else {
    deleted = await withPostgres(t, async (sql) => {
      const rows = await sql`DELETE FROM click_tail WHERE id = ANY(${sql.array(ids, 'int8')}::int8[]) RETURNING id`;
      return rows.length;
    });
  }
  if (deleted !== ids.length) throw new Error(`deleted ${deleted} of ${ids.length} clicks: not all in the tail`);
}
