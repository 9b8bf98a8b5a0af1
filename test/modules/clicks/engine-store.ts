/**
 * One click store per engine for the store-level contract tests (store-contract.test.ts): the
 * engine's ClickWriter on a fresh database, with the few reads the contract checks, each in the
 * engine's own SQL (the stores' read interfaces come later; these only observe). Links are
 * seeded as rows: the link stores are not what is tested here.
 */
import type { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '../../../src/db/address';
import { openDatabase } from '../../../src/db/client';
import { migrateDatabase } from '../../../src/db/migrate';
import { num, openPostgres, type Pg } from '../../../src/db/postgres/client';
import { CLICK_BARRIER_LOCK } from '../../../src/db/postgres/locks';
import { fixedClock } from '../../../src/lib/clock';
import type { WireClick } from '../../../src/modules/clicks/capture/record';
import { noGeo } from '../../../src/modules/clicks/enrich/geo';
import { PostgresClickWriter } from '../../../src/modules/clicks/postgres/store';
import { deleteLinkClicks, deleteLinkClicksPg } from '../../../src/modules/clicks/public';
import { SqliteClickWriter } from '../../../src/modules/clicks/sqlite/store';
import type { ClickWriter } from '../../../src/modules/clicks/store';
import { forgetLinkRollups, forgetLinkRollupsPg } from '../../../src/modules/rollups/public';
import { decodeCounts } from '../../../src/modules/rollups/rollup-codec';
import { freshPostgresUrl } from '../../helpers/postgres';

export interface Counters {
  clicks: number;
  uniques: number;
  bots: number;
  last: number | null;
}

/** A bucket with its breakdown named: `dim key value` -> clicks. */
export interface NamedBucket {
  clicks: number;
  uniques: number;
  counts: Record<string, number>;
}

/** When the writer folds on its own during a drain (both engines' store options). */
export interface FoldOptions {
  foldMaxClicks?: number;
  foldMaxMs?: number;
}

export interface EngineStore {
  engine: Engine;
  writer: ClickWriter;
  /** PostgreSQL: the database's URL, for a second writer on it (another node, or after a restart). */
  url?: string;
  /** Seeds a link row (and its counters row), and optionally a variant. */
  link(id: string, slug: string, variant?: { id: string; code: string }): Promise<void>;
  deleteLink(id: string): Promise<void>;
  /** Deletes a link as the links store does: its raw clicks and its rollups first, in one transaction. */
  deleteLinkWithClicks(id: string): Promise<void>;
  counters(id: string): Promise<Counters>;
  variantClicks(id: string): Promise<number>;
  /** The bucket of a scope (a link id, or null for the workspace), grain and start, humans. */
  bucket(linkId: string | null, grain: 'hour' | 'day', start: number, bot?: boolean): Promise<NamedBucket | null>;
  rawClicks(): Promise<number>;
  close(): Promise<void>;
}

const GRAIN = { hour: 0, day: 1 } as const;

function named(names: Map<number, string>, data: Uint8Array): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [id, n] of decodeCounts(data)) out[names.get(id) ?? `#${id}`] = n;
  return out;
}

async function sqliteStore(now: number, options: FoldOptions): Promise<EngineStore> {
  const dir = mkdtempSync(join(tmpdir(), 'slink-contract-'));
  const db = openDatabase(join(dir, 'slink.db'));
  migrateDatabase(db);
  const sqlite: Database = db.$client;
  const writer = new SqliteClickWriter(sqlite, noGeo, ['sl.test'], fixedClock(now), options);
  const names = () =>
    new Map(
      sqlite
        .query<{ id: number; dim: string; key: string; value: string }, []>(
          'SELECT id, dim, key, value FROM rollup_values',
        )
        .all()
        .map((r) => [r.id, `${r.dim} ${r.key} ${r.value}`]),
    );
  const scopeOf = (linkId: string | null) =>
    linkId === null
      ? 0
      : (sqlite
          .query<{ id: number }, [string]>("SELECT id FROM rollup_values WHERE dim = 'link' AND value = ?")
          .get(linkId)?.id ?? -1);
  return {
    engine: 'sqlite',
    writer,
    async link(id, slug, variant) {
      sqlite
        .query(
          `INSERT INTO links (id, slug, destination, status, params, created_at, updated_at)
           VALUES (?, ?, 'https://example.com/', 'active', '{}', 0, 0)`,
        )
        .run(id, slug);
      sqlite.query('INSERT INTO link_counters (link_id) VALUES (?)').run(id);
      if (variant)
        sqlite
          .query(
            `INSERT INTO variants (id, link_id, code, params, click_count, created_at, updated_at)
             VALUES (?, ?, ?, '{}', 0, 0, 0)`,
          )
          .run(variant.id, id, variant.code);
    },
    async deleteLink(id) {
      sqlite.query('DELETE FROM links WHERE id = ?').run(id);
    },
    async deleteLinkWithClicks(id) {
      sqlite.transaction(() => {
        deleteLinkClicks(sqlite, id);
        forgetLinkRollups(sqlite, id);
        sqlite.query('DELETE FROM links WHERE id = ?').run(id);
      })();
    },
    async counters(id) {
      const r = sqlite
        .query<{ clicks: number; uniques: number; bots: number; last: number | null }, [string]>(
          'SELECT clicks, uniques, bots, last_clicked_at AS last FROM link_counters WHERE link_id = ?',
        )
        .get(id)!;
      return { ...r };
    },
    async variantClicks(id) {
      return sqlite.query<{ n: number }, [string]>('SELECT click_count AS n FROM variants WHERE id = ?').get(id)!.n;
    },
    async bucket(linkId, grain, start, bot = false) {
      const r = sqlite
        .query<{ clicks: number; uniques: number; data: Uint8Array }, [number, number, number, number]>(
          'SELECT clicks, uniques, data FROM rollups WHERE scope = ? AND grain = ? AND start = ? AND bot = ?',
        )
        .get(scopeOf(linkId), GRAIN[grain], start, bot ? 1 : 0);
      return r ? { clicks: r.clicks, uniques: r.uniques, counts: named(names(), r.data) } : null;
    },
    async rawClicks() {
      return sqlite
        .query<{ n: number }, []>(
          'SELECT (SELECT count(*) FROM click_tail) + (SELECT coalesce(sum(count), 0) FROM click_blocks) AS n',
        )
        .get()!.n;
    },
    async close() {
      sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresStore(now: number, options: FoldOptions): Promise<EngineStore> {
  const url = await freshPostgresUrl();
  const sql: Pg = openPostgres(url, 4);
  const writer = new PostgresClickWriter(sql, noGeo, ['sl.test'], fixedClock(now), options);
  const names = async () =>
    new Map<number, string>(
      (await sql`SELECT id, dim, key, value FROM rollup_values`).map(
        (r: { id: number; dim: string; key: string; value: string }) => [r.id, `${r.dim} ${r.key} ${r.value}`],
      ),
    );
  const scopeOf = async (linkId: string | null) => {
    if (linkId === null) return 0;
    const [r] = await sql`SELECT id FROM rollup_values WHERE dim = 'link' AND value = ${linkId}`;
    return r ? num(r.id) : -1;
  };
  return {
    engine: 'postgres',
    writer,
    url,
    async link(id, slug, variant) {
      // Domain 1: the first domain, which the migrations make.
      await sql`INSERT INTO links (id, slug, domain_id, destination, status, params, created_at, updated_at)
        VALUES (${id}, ${slug}, 1, 'https://example.com/', 'active', '{}'::jsonb, 0, 0)`;
      await sql`INSERT INTO link_counters (link_id) VALUES (${id})`;
      if (variant)
        await sql`INSERT INTO variants (id, link_id, code, params, click_count, created_at, updated_at)
          VALUES (${variant.id}, ${id}, ${variant.code}, '{}'::jsonb, 0, 0, 0)`;
    },
    async deleteLink(id) {
      await sql`DELETE FROM links WHERE id = ${id}`;
    },
    async deleteLinkWithClicks(id) {
      await sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${CLICK_BARRIER_LOCK})`;
        await deleteLinkClicksPg(tx, id);
        await forgetLinkRollupsPg(tx, id);
        await tx`DELETE FROM links WHERE id = ${id}`;
      });
    },
    async counters(id) {
      const [r] =
        await sql`SELECT clicks, uniques, bots, last_clicked_at AS last FROM link_counters WHERE link_id = ${id}`;
      return {
        clicks: num(r.clicks),
        uniques: num(r.uniques),
        bots: num(r.bots),
        last: r.last === null ? null : num(r.last),
      };
    },
    async variantClicks(id) {
      const [r] = await sql`SELECT click_count AS n FROM variants WHERE id = ${id}`;
      return num(r.n);
    },
    async bucket(linkId, grain, start, bot = false) {
      const [r] = await sql`SELECT clicks, uniques, data FROM rollups
        WHERE scope = ${await scopeOf(linkId)} AND grain = ${GRAIN[grain]} AND start = ${start} AND bot = ${bot}`;
      return r ? { clicks: num(r.clicks), uniques: num(r.uniques), counts: named(await names(), r.data) } : null;
    },
    async rawClicks() {
      const [r] =
        await sql`SELECT (SELECT count(*) FROM click_tail) + (SELECT coalesce(sum(count), 0) FROM click_blocks) AS n`;
      return num(r.n);
    },
    async close() {
      await sql.close();
    },
  };
}

export function engineStore(engine: Engine, now: number, options: FoldOptions = {}): Promise<EngineStore> {
  return engine === 'sqlite' ? sqliteStore(now, options) : postgresStore(now, options);
}

/** A captured click as the flusher hands it to the writer. */
export function wire(over: Partial<WireClick> & Pick<WireClick, 'linkId' | 'time'>): WireClick {
  return {
    variantId: null,
    code: null,
    location: 'https://example.com/',
    paramsJson: '{}',
    address: '81.2.69.160',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0',
    referrer: null,
    acceptLanguage: 'en-GB',
    bot: false,
    ...over,
  };
}
