/**
 * The operator CLI (in this process: `cli` of cli.ts) against either engine: a SQLite file in a
 * temporary folder, or a fresh database of the tests' PostgreSQL cluster (SLINK_DATABASE_URL;
 * SLINK_DB still names a local path, for the spill file). `rows` reads what the CLI stored, with the same SQL on both
 * (`$1` parameters; booleans as 0/1 and int8 as numbers, SQLite's way), for the few checks
 * only the database shows (a hash stored instead of a secret).
 */
import { join } from 'node:path';
import type { Engine } from '../../src/db/address';
import { num, openPostgres } from '../../src/db/postgres/client';
import { cli, inspect, tempDir } from './cli';
import { freshPostgresUrl } from './postgres';
import type { RunResult } from './proc';

export interface CliDatabase {
  engine: Engine;
  /** SLINK_DB (the database on SQLite; the spill file's folder on PostgreSQL). */
  path: string;
  /** What a spawned server needs besides SLINK_DB to use this database. */
  env: Record<string, string>;
  run(args: string[], opts?: { stdin?: string; env?: Record<string, string> }): Promise<RunResult>;
  rows<T extends Record<string, unknown>>(text: string, ...params: (string | number)[]): Promise<T[]>;
}

export async function cliDatabase(engine: Engine, path = join(tempDir(), 'slink.db')): Promise<CliDatabase> {
  if (engine === 'sqlite') {
    return {
      engine,
      path,
      env: {},
      run: (args, opts) => cli(path, args, opts),
      rows: async <T>(text: string, ...params: (string | number)[]) =>
        inspect(path, (s) => s.query(text.replace(/\$(\d+)/g, '?$1')).all(...params) as T[]),
    };
  }
  const url = await freshPostgresUrl();
  return {
    engine,
    path,
    env: { SLINK_DATABASE_URL: url },
    run: (args, opts) => cli(path, args, { ...opts, env: { SLINK_DATABASE_URL: url, ...opts?.env } }),
    async rows<T>(text: string, ...params: (string | number)[]) {
      const sql = openPostgres(url, 1);
      try {
        const rows = (await sql.unsafe(text, params)) as Record<string, unknown>[];
        return rows.map(
          (row) =>
            Object.fromEntries(
              Object.entries(row).map(([k, v]) => [
                k,
                typeof v === 'boolean' ? (v ? 1 : 0) : typeof v === 'string' && /_at$/.test(k) ? num(v) : v,
              ]),
            ) as T,
        );
      } finally {
        await sql.close();
      }
    },
  };
}
