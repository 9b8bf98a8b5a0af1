/**
 * The raw clicks as stored, on either engine, for tests that check the API against what was
 * recorded: read back through each engine's own tables (SQLite: the click store's reader,
 * readClicksAfter; PostgreSQL: the tail and the sealed blocks, decoded).
 */
import { Database } from 'bun:sqlite';
import { openPostgres, type Pg } from '../../src/db/postgres/client';
import { decodeBlock } from '../../src/modules/clicks/block-codec';
import { readClicksAfter } from '../../src/modules/clicks/sqlite/raw-read';
import { visitorHex } from '../../src/modules/clicks/sqlite/tail-append';
import { DIM_COLUMNS } from '../../src/modules/rollups/public';
import type { TestApp } from './app';
import { insertTailClicks } from './raw-clicks';
import { addressOf, type StoredSource } from './stored';

export interface StoredClick {
  id: number;
  linkId: string;
  timestamp: number;
  /** 1 for a bot hit, else 0. */
  bot: number;
}

/** A short-lived pool on the test's PostgreSQL database (the app's own pool is not exposed). */
async function withPostgres<T>(
  source: StoredSource,
  use: (sql: ReturnType<typeof openPostgres>) => Promise<T>,
): Promise<T> {
  const address = addressOf(source);
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
    const names = new Map<number, string>(
      (await sql`SELECT id, value FROM rollup_values WHERE dim = 'link'`).map((r: { id: number; value: string }) => [
        r.id,
        r.value,
      ]),
    );
    return (await pgRawClicks(sql))
      .map((c) => ({ id: c.id, linkId: names.get(c.link)!, timestamp: c.time, bot: c.flags & 1 }))
      .filter((c) => linkId === undefined || c.linkId === linkId);
  });
}

/** A raw click as PostgreSQL stores it: ids of the dictionary and the target, the visitor as 16 hex. */
export interface PgRawClick {
  id: number;
  link: number;
  time: number;
  target: number;
  /** In DIM_COLUMNS order. */
  dims: number[];
  visitor: string;
  flags: number;
}

/** Every raw click of a PostgreSQL database, in id order: the sealed ones decoded from their blocks, and the tail's. */
export async function pgRawClicks(sql: Pg): Promise<PgRawClick[]> {
  const out: PgRawClick[] = [];
  for (const b of await sql`SELECT link, data FROM click_blocks`) {
    const c = decodeBlock(b.data);
    for (let i = 0; i < c.count; i++) {
      out.push({
        id: c.id[i]!,
        link: b.link,
        time: c.time[i]!,
        target: c.target[i]!,
        dims: c.dims.map((column) => column[i]!),
        visitor: visitorHex(c.visitorHi[i]!, c.visitorLo[i]!),
        flags: c.flags[i]!,
      });
    }
  }
  const tail = await sql.unsafe(`SELECT link, id::float8 AS id, time::float8 AS time, target,
      ARRAY[${DIM_COLUMNS.join(', ')}] AS dims, lpad(to_hex(visitor), 16, '0') AS visitor, flags FROM click_tail`);
  for (const r of tail) out.push({ ...r, dims: [...r.dims] });
  return out.sort((a, b) => a.id - b.id);
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

/**
 * Stores `count` human clicks of a link straight into the tail (a fixture far larger than a test
 * could send), one per millisecond back from `newest`, every fact unknown, landing on
 * https://example.com/landing; counters and rollups are not touched. Ids continue after the
 * last one given. A database a running server uses is written on a connection of its own.
 */
export async function insertStoredClicks(
  source: StoredSource,
  linkId: string,
  count: number,
  newest: number,
): Promise<void> {
  const address = addressOf(source);
  if (address.engine === 'sqlite') {
    if ('deps' in source) {
      insertTailClicks(source.deps.db.$client, linkId, count, newest);
      return;
    }
    const sqlite = new Database(address.path);
    try {
      // The server's writer may hold the write lock for a moment.
      sqlite.exec('PRAGMA busy_timeout = 5000');
      insertTailClicks(sqlite, linkId, count, newest);
    } finally {
      sqlite.close();
    }
    return;
  }
  await withPostgres(source, (sql) =>
    sql.begin(async (tx) => {
      const dims = ['country', 'city', 'device', 'os', 'browser', 'referrer', 'trafficType', 'language'];
      const wanted = [['link', linkId], ...dims.map((d) => [d, ''])] as [string, string][];
      for (const [dim, value] of wanted)
        await tx`INSERT INTO rollup_values (dim, key, value) VALUES (${dim}, '', ${value}) ON CONFLICT DO NOTHING`;
      const ids = new Map<string, number>();
      for (const [dim, value] of wanted) {
        const [r] = await tx`SELECT id FROM rollup_values WHERE dim = ${dim} AND key = '' AND value = ${value}`;
        ids.set(dim, r.id);
      }
      // A link made with that destination already has it (its plain target is made with it).
      await tx`INSERT INTO click_targets (link_id, destination, params)
        VALUES (${linkId}, 'https://example.com/landing', '{}') ON CONFLICT DO NOTHING`;
      const [target] = await tx`SELECT id FROM click_targets WHERE link_id = ${linkId} AND variant_id = ''
        AND code IS NULL AND destination = 'https://example.com/landing' AND params = '{}' AND rule IS NULL`;
      const d = dims.map((dim) => ids.get(dim)!);
      await tx`INSERT INTO click_tail (link, id, time, target, country, city, device, os, browser, referrer, traffic,
          language, visitor, flags)
        SELECT ${ids.get('link')!}, nextval('click_ids'), ${newest}::int8 - i, ${target.id}, ${d[0]!}, ${d[1]!}, ${d[2]!},
          ${d[3]!}, ${d[4]!}, ${d[5]!}, ${d[6]!}, ${d[7]!}, i, 0
        FROM generate_series(1, ${count}) AS i`;
    }),
  );
}
