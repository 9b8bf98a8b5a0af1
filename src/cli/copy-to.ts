/**
 * `slink copy-to <postgres-url> [--batch <rows>]` (docs/operations.md, "Moving to
 * PostgreSQL"): the SQLite database of SLINK_DB into an empty PostgreSQL database. The file is
 * first brought up to date as a start would (migrations, clicks of an older release, clicks not
 * yet counted, a spill file); progress goes to stderr, the verification to stdout. The URL's
 * password is never printed.
 */
import { realpathSync } from 'node:fs';
import type { BaseDeps } from '../compose/deps';
import { CopyRefused, copyToPostgres } from '../db/copy-to/copy';
import { CopyMismatch } from '../db/copy-to/verify';
import { connectPostgres, type Pg, redactUrl } from '../db/postgres/client';
import { migratePostgres } from '../db/postgres/migrate';
import type { Logger } from '../lib/log';
import { startClickStorage } from '../modules/clicks/public';
import { parseCommand, UsageError } from './args';
import type { CliIo } from './io';

/** Rows per transaction of the raw clicks and the buckets, unless --batch says otherwise. */
const DEFAULT_BATCH = 50_000;

/** A failure of the copy, said in one line (runCli prints its message as it is). */
export class CopyFailed extends Error {}

function parseBatch(value: string | undefined): number {
  if (value === undefined) return DEFAULT_BATCH;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000)
    throw new UsageError('--batch must be a whole number from 1 to 1000000');
  return n;
}

export async function copyToCommand(deps: BaseDeps, argv: string[], io: CliIo): Promise<void> {
  const { positionals, values } = parseCommand(argv, { batch: { type: 'string' } });
  if (positionals.length !== 1) throw new UsageError('usage: slink copy-to <postgres-url> [--batch <rows>]');
  const url = positionals[0]!;
  if (!/^postgres(ql)?:\/\//.test(url)) throw new UsageError('copy-to needs a postgres:// URL');
  const batch = parseBatch(values.batch);
  const safeUrl = redactUrl(url);
  const log: Logger = { info: (m) => io.err(`copy-to: ${m}`), error: (m) => io.err(`copy-to: ${m}`) };
  // What a start does to the file first, so that every click is counted before it is copied.
  const start = startClickStorage(deps.db, deps.config, log, deps.clock);
  if (start.writerHeld !== undefined) {
    const said =
      start.writerHeld.failure instanceof Error ? start.writerHeld.failure.message : String(start.writerHeld.failure);
    throw new CopyFailed(`${deps.config.dbPath} cannot be brought up to date: ${said}`);
  }
  let sql: Pg | null = null;
  try {
    sql = await connectPostgres(
      url,
      { info: (m) => io.err(`copy-to: ${m}`) },
      { max: 1, variable: 'the copy-to URL', applicationName: 'slink copy-to' },
    );
    await migratePostgres(sql);
    const source = realpathSync(deps.config.dbPath);
    const lines = await copyToPostgres(deps.db.$client, sql, {
      source,
      target: safeUrl,
      batch,
      now: deps.clock.now(),
      progress: (line) => io.err(line),
    });
    for (const line of lines) io.out(line);
  } catch (err) {
    if (err instanceof CopyRefused || err instanceof CopyMismatch) throw new CopyFailed(err.message);
    // Bun.SQL's messages never carry the password; the URL is named without it all the same.
    const said = err instanceof Error ? err.message : String(err);
    throw new CopyFailed(`copy to ${safeUrl} failed: ${said.split(url).join(safeUrl)}`);
  } finally {
    await sql?.close();
  }
}
