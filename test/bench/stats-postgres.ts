/**
 * bench:stats's PostgreSQL part (`--engine postgres`): the seeded SQLite file moved by the real
 * `slink copy-to` into a throwaway cluster (pg-cluster.ts), then the same timed calls, the same
 * export and the disk, each beside SQLite's figures from the same run. It reads PostgreSQL only
 * through the HTTP API, the CLI and pg_total_relation_size, so it holds whatever the engine's
 * raw click storage is.
 */
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeps, unportedDb } from '../../src/compose/deps';
import { postgresStores } from '../../src/compose/stores';
import type { Config } from '../../src/config';
import { openPostgres, type Pg } from '../../src/db/postgres/client';
import type { Clock } from '../../src/lib/clock';
import type { Logger } from '../../src/lib/log';
import { BUN, cleanEnv, ROOT } from '../helpers/proc';
import { benchPostgres, PG_CLICK_TABLES } from './pg-cluster';
import { type StatCall, servedWithReadKey, TARGET_CALLS, type Timing, timeGet } from './stats-calls';
import { type ExportRun, int, mb, measureExport, ms } from './stats-export';
import { eachLine } from './stderr-lines';

/** What the SQLite part measured in this run, for the figures beside PostgreSQL's. */
export interface SqliteFigures {
  db: string;
  clicks: number;
  busy: string;
  busyClicks: number;
  /** The file's size when measured (before this run's accounts, keys and copy-to touched it). */
  fileBytes: number;
  /** The timed calls, in their order; the deep page's cursor is SQLite's, valid on the copy (same ids). */
  calls: StatCall[];
  stats: Map<string, Timing> | null;
  exports: ExportRun[] | null;
}

export interface PostgresOptions {
  runs: number;
  /** The configuration of the in-process server on `url` (the SQLite part's, with SLINK_DATABASE_URL). */
  config(url: string): Config;
  clock: Clock;
  log: Logger;
}

const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}x` : 'n/a');
const met = (ok: boolean) => (ok ? 'met' : 'NOT met');

/** The real CLI, as an operator runs it; its failure (a refused target, a failed verification) fails the bench. */
async function copyTo(db: string, url: string, clicks: number): Promise<void> {
  console.log(`\nslink copy-to: ${db} into a fresh PostgreSQL database ...`);
  const started = performance.now();
  const proc = Bun.spawn([BUN, 'src/index.ts', 'copy-to', url], {
    cwd: ROOT,
    env: cleanEnv({ SLINK_DB: db }),
    stdout: 'pipe',
    stderr: 'pipe',
  });
  // When each table's first progress line arrived: where the time goes.
  const began: [string, number][] = [];
  const tail: string[] = [];
  const reading = eachLine(proc.stderr, (line) => {
    tail.push(line);
    if (tail.length > 20) tail.shift();
    const table = /^copy-to: (\w+) \d+\/\d+ rows/.exec(line)?.[1];
    if (table && began.at(-1)?.[0] !== table) began.push([table, performance.now() - started]);
  });
  const stdout = await new Response(proc.stdout).text();
  const code = await proc.exited;
  await reading;
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`slink copy-to failed (exit ${code}): ${tail.join('\n')}`);
  // Progress is printed at most once a second: a table that took less may have no line of its own.
  const steps = began.map(([table, at]) => `${table} at ${(at / 1000).toFixed(1)} s`);
  console.log(
    `copied and verified in ${seconds.toFixed(1)} s: ${int(clicks / seconds)} clicks/s overall, verification included\n` +
      `  first progress line of each table: ${steps.join(', ')}; exit at ${seconds.toFixed(1)} s (after the last table: sequences and the verification)\n` +
      `verification (exit ${code}):\n${stdout
        .trimEnd()
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n')}`,
  );
}

/** Whether both engines answered the same, and if not where they part. */
function sameBody(pg: string, sqlite: string): string {
  if (pg === sqlite) return "SQLite's";
  let at = 0;
  while (at < pg.length && pg[at] === sqlite[at]) at++;
  return `**differs from SQLite's** at character ${at}: ${JSON.stringify(pg.slice(Math.max(0, at - 40), at + 40))} / ${JSON.stringify(sqlite.slice(Math.max(0, at - 40), at + 40))}`;
}

/** The same calls as the SQLite part, from an in-process server on PostgreSQL, beside SQLite's. */
async function compareStats(
  url: string,
  o: PostgresOptions,
  s: SqliteFigures,
  sqlite: Map<string, Timing>,
): Promise<void> {
  const sql = openPostgres(url);
  const deps = createDeps({
    db: unportedDb(),
    stores: postgresStores(sql, url),
    config: o.config(url),
    clock: o.clock,
    log: o.log,
  });
  await deps.linksLoaded;
  const server = await servedWithReadKey(deps);
  const { base, key } = server;
  console.log(
    `\nThe same calls on PostgreSQL (${o.runs} timed runs after 3 warm-ups each), SQLite's from this run beside:\n\n` +
      '| call | SQLite p50 | SQLite p95 | PostgreSQL p50 | PostgreSQL p95 | p50 PG / SQLite | p95 PG / SQLite | body |\n|---|---|---|---|---|---|---|---|',
  );
  const targets: string[] = [];
  try {
    for (const call of s.calls) {
      const pg = await timeGet(base, key, call.path, o.runs);
      const lite = sqlite.get(call.label)!;
      console.log(
        `| ${call.label} | ${lite.p50.toFixed(1)} ms | ${lite.p95.toFixed(1)} ms | ${pg.p50.toFixed(1)} ms | ${pg.p95.toFixed(1)} ms | ${ratio(pg.p50, lite.p50)} | ${ratio(pg.p95, lite.p95)} | ${(pg.bytes / 1024).toFixed(0)} KB, ${sameBody(pg.body, lite.body)} |`,
      );
      if (TARGET_CALLS.includes(call.label))
        targets.push(
          `- ${call.label} p50 at most 2x SQLite's: ${ratio(pg.p50, lite.p50)}, ${met(pg.p50 <= 2 * lite.p50)}`,
        );
    }
  } finally {
    await server.stop();
    deps.linkIndex.stopLoading();
    deps.exports.close();
    deps.passwordVerifier.close();
    await deps.stores.close();
  }
  console.log(`\n${targets.join('\n')}`);
}

const rss = (r: ExportRun) =>
  `${mb(r.growth).toFixed(1)} MB (${mb(r.before).toFixed(0)} -> ${mb(r.peak).toFixed(0)} MB)`;

async function compareExport(url: string, s: SqliteFigures): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'slink-bench-pg-node-'));
  let runs: ExportRun[];
  try {
    // SLINK_DB only places the node's spill file; every row is in PostgreSQL.
    runs = await measureExport({ SLINK_DB: join(dir, 'node.db'), SLINK_DATABASE_URL: url }, s.busy, s.busyClicks);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const lite = s.exports;
  console.log(
    `\nThe export on PostgreSQL (${int(s.busyClicks)} rows, ${mb(runs[0]!.bytes).toFixed(0)} MB), each run in a fresh server process, SQLite's runs of this run beside:\n\n` +
      '| run | PG rows/s | SQLite rows/s | PG / SQLite | PG server RSS growth (idle -> peak) | the same on SQLite | PG /healthz p50 / p99 idle | the same during the export | SQLite during its export |\n|---|---|---|---|---|---|---|---|---|',
  );
  runs.forEach((r, i) => {
    const l = lite?.[i];
    console.log(
      `| ${i + 1} | ${int(r.rate)} | ${l ? int(l.rate) : 'n/a'} | ${l ? ratio(r.rate, l.rate) : 'n/a'} | ${rss(r)} | ${l ? rss(l) : 'n/a'} | ${ms(r.idle)} | ${ms(r.busy)} | ${l ? ms(l.busy) : 'n/a'} |`,
    );
  });
  const slowest = Math.min(...runs.map((r) => r.rate));
  console.log(
    `\n- export at least 100,000 rows/s: slowest run ${int(slowest)}, ${met(slowest >= 100_000)}; RSS growth ${runs.map((r) => mb(r.growth).toFixed(1)).join(', ')} MB`,
  );
}

/** Tables and indexes per table: the click side's (PG_CLICK_TABLES) against the clicks, the rest apart. */
async function compareDisk(sql: Pg, s: SqliteFigures): Promise<void> {
  const rows: { name: string; heap: string; indexes: string; total: string }[] = await sql`
    SELECT c.relname AS name, pg_relation_size(c.oid) AS heap, pg_indexes_size(c.oid) AS indexes,
      pg_total_relation_size(c.oid) AS total
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY pg_total_relation_size(c.oid) DESC`;
  const counted = rows.filter((r) => PG_CLICK_TABLES.includes(r.name));
  const rest = rows.filter((r) => !PG_CLICK_TABLES.includes(r.name));
  const sum = (list: typeof rows) => list.reduce((n, r) => n + Number(r.total), 0);
  const perClick = (bytes: number) => (bytes / s.clicks).toFixed(1);
  console.log(
    `\nDisk on PostgreSQL, after VACUUM ANALYZE (pg_total_relation_size; bytes per click over ${int(s.clicks)} clicks):\n\n` +
      '| table | heap | indexes | TOAST and maps | total | bytes per click |\n|---|---|---|---|---|---|',
  );
  for (const r of counted) {
    const other = Number(r.total) - Number(r.heap) - Number(r.indexes);
    console.log(
      `| ${r.name} | ${mb(Number(r.heap)).toFixed(1)} MB | ${mb(Number(r.indexes)).toFixed(1)} MB | ${mb(other).toFixed(1)} MB | ${mb(Number(r.total)).toFixed(1)} MB | ${perClick(Number(r.total))} |`,
    );
  }
  const pgBytes = sum(counted);
  console.log(`| **click side** | | | | ${mb(pgBytes).toFixed(1)} MB | **${perClick(pgBytes)}** |`);
  console.log(
    `\nnot counted: ${mb(sum(rest)).toFixed(1)} MB in ${rest.length} other tables (${rest
      .slice(0, 5)
      .map((r) => `${r.name} ${mb(Number(r.total)).toFixed(1)} MB`)
      .join(', ')}${rest.length > 5 ? ', ...' : ''})`,
  );
  const lite = sqliteDisk(s.db);
  console.log(
    `SQLite, the same seeded file: ${perClick(s.fileBytes)} bytes per click for the whole file (as printed above); ` +
      `${perClick(lite)} for the tables and indexes of the same names, now (dbstat: ${PG_CLICK_TABLES.join(', ')})\n` +
      `\n- disk at most 150 bytes per click on PostgreSQL: ${perClick(pgBytes)}, ${met(pgBytes / s.clicks <= 150)}`,
  );
}

/** The pages (dbstat) of SQLite's tables named as PostgreSQL's click side, with their indexes. */
function sqliteDisk(db: string): number {
  const sqlite = new Database(db, { readonly: true });
  try {
    return sqlite
      .query<{ tbl: string; bytes: number }, []>(
        `SELECT s.tbl_name AS tbl, sum(d.pgsize) AS bytes FROM dbstat d JOIN sqlite_schema s ON s.name = d.name
         GROUP BY s.tbl_name`,
      )
      .all()
      .filter((r) => PG_CLICK_TABLES.includes(r.tbl))
      .reduce((n, r) => n + r.bytes, 0);
  } finally {
    sqlite.close();
  }
}

export async function postgresPart(s: SqliteFigures, o: PostgresOptions): Promise<void> {
  const cluster = await benchPostgres();
  try {
    await copyTo(s.db, cluster.url, s.clicks);
    // What autovacuum would do soon after the load, done now: statistics for the planner, the
    // visibility map and hint bits set, so the reads below are the steady state's.
    const sql = openPostgres(cluster.url, 1);
    const t0 = performance.now();
    await sql.unsafe('VACUUM (ANALYZE)');
    console.log(`VACUUM (ANALYZE) after the copy: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    try {
      if (s.stats) await compareStats(cluster.url, o, s, s.stats);
      if (s.exports) await compareExport(cluster.url, s);
      await compareDisk(sql, s);
    } finally {
      await sql.close();
    }
  } finally {
    cluster.stop();
  }
}
