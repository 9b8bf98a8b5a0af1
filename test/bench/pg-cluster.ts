/**
 * A throwaway PostgreSQL cluster for the benchmarks (`--engine postgres`): initdb into a
 * temporary folder, a free port on loopback, as the `postgres` user when run as root (the
 * server refuses root), removed at exit. Unlike the tests' cluster (test/helpers/postgres.ts:
 * fsync off, for speed), this one keeps PostgreSQL's durable defaults (fsync, a WAL flush at
 * each commit), so its figures are what a real server costs; only its memory is set for this
 * box (shared_buffers 512 MB). Returns the URL of a migrated, empty database.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgres } from '../../src/db/postgres/client';
import { migratePostgres } from '../../src/db/postgres/migrate';
import { freePort } from '../helpers/proc';

function bin(): string {
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian)
    ? readdirSync(debian).filter((v) => existsSync(join(debian, v, 'bin', 'initdb')))
    : [];
  if (versions.length === 0) throw new Error('PostgreSQL is not installed: run scripts/test-deps.sh');
  return join(debian, versions.sort((a, b) => Number(b) - Number(a))[0]!, 'bin');
}

export interface BenchPostgres {
  url: string;
  /** The server's main process (the postmaster), parent of every backend: its CPU time is PostgreSQL's. */
  pid: number;
  stop(): void;
}

export interface BenchPostgresOptions {
  /** Loads pg_stat_statements (CREATE EXTENSION it in the database to read): statementsOf reads it. */
  statements?: boolean;
}

export async function benchPostgres(given: BenchPostgresOptions = {}): Promise<BenchPostgres> {
  const asPostgres = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'slink-bench-pg-'));
  if (asPostgres) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout);
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout);
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (args: string[]) => {
    const command = [join(bin(), args[0]!), ...args.slice(1)];
    const r = asPostgres
      ? spawnSync('su', ['postgres', '-s', '/bin/sh', '-c', command.map((a) => `'${a}'`).join(' ')], {
          encoding: 'utf8',
        })
      : spawnSync(command[0]!, command.slice(1), { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${args[0]} failed: ${r.stderr || r.stdout}`);
  };
  const port = freePort();
  run(['initdb', '-D', join(dir, 'data'), '--auth=trust', '-U', 'slink', '-E', 'UTF8']);
  const statements = given.statements === true ? ' -c shared_preload_libraries=pg_stat_statements' : '';
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c shared_buffers=512MB -c max_wal_size=4GB${statements}`;
  run(['pg_ctl', '-D', join(dir, 'data'), '-w', '-o', options, '-l', join(dir, 'log'), 'start']);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      run(['pg_ctl', '-D', join(dir, 'data'), '-m', 'fast', 'stop']);
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', stop);
  const admin = openPostgres(`postgres://slink@127.0.0.1:${port}/postgres`, 1);
  await admin.unsafe('CREATE DATABASE slink_bench');
  await admin.close();
  const url = `postgres://slink@127.0.0.1:${port}/slink_bench`;
  const sql = openPostgres(url, 1);
  await migratePostgres(sql);
  await sql.close();
  // postmaster.pid's first line; readable by root, and by the user who ran initdb otherwise.
  const pid = Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  return { url, pid, stop };
}

/** Bytes of the click side's tables and indexes on PostgreSQL (pg_total_relation_size). */
export const PG_CLICK_TABLES = [
  'click_tail',
  'click_blocks',
  'click_segments',
  'click_targets',
  'click_uniques',
  'click_deltas',
  'rollups',
  'rollup_values',
  'rollup_marks',
];

/**
 * The statements that took the server's time (pg_stat_statements, the cluster started with
 * `statements`, the extension made in this database before the run): the `top` by total time,
 * one line each with its calls, rows and mean, its text cut to `width` characters.
 */
export async function statementsOf(url: string, top = 15, width = 110): Promise<string[]> {
  const sql = openPostgres(url, 1);
  try {
    const rows = await sql`SELECT calls, rows, total_exec_time AS total, mean_exec_time AS mean,
        regexp_replace(query, '\\s+', ' ', 'g') AS query
      FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
      ORDER BY total_exec_time DESC LIMIT ${top}`;
    return rows.map(
      (r: { calls: string; rows: string; total: number; mean: number; query: string }) =>
        `${(Number(r.total) / 1000).toFixed(2).padStart(8)} s ${String(r.calls).padStart(8)} calls ${String(r.rows).padStart(9)} rows ${Number(r.mean).toFixed(3).padStart(8)} ms  ${r.query.slice(0, width)}`,
    );
  } finally {
    await sql.close();
  }
}
