/**
 * `slink copy-to <postgres-url>` (docs/operations.md, "Moving to PostgreSQL"): the SQLite
 * database into an empty PostgreSQL one, migrated first, then verified.
 *
 * Fast on ten million clicks: every id is kept (accounts to click ids), so the packed rollup
 * buckets and the sealed blocks of raw clicks go over as bytes and nothing is looked up; the
 * tail's raw clicks go into click_tail, tens of thousands per statement (arrays unnested); the
 * sequences and the sealer's watermark are moved past the copied ids at the end.
 *
 * Safe to re-run after a crash: the target records the copy's state (state.ts), each step
 * commits its rows with it, and a re-run of the same source resumes where it stopped, or starts
 * over when the source changed meanwhile. A target holding anything else is refused.
 */
import type { Database } from 'bun:sqlite';
import {
  copySealState,
  dropClickTailKey,
  importsQueued,
  lastAssignedClickId,
  nextBlockChunk,
  nextTailChunk,
  restoreClickTailKey,
  sqliteClickCounts,
  writeBlockChunk,
  writeTailChunk,
} from '../../modules/clicks/public';
import { nextRollupChunk, writeRollupChunk } from '../../modules/rollups/public';
import type { Pg } from '../postgres/client';
import { copyChunks } from './chunks';
import { CopyProgress } from './progress';
import { beginCopy, type CopyState, finishStep, firstTableWithData, readCopyState, type Step } from './state';
import { copyPlainTable, countRows, PLAIN_TABLES, pgSequenceOf, uniquesFrom } from './tables';
import { verifyCopy } from './verify';

/** A copy that cannot be made: the one line the CLI prints. */
export class CopyRefused extends Error {}

export interface CopyOptions {
  /** The SQLite file's absolute path (names the source in the target's state). */
  source: string;
  /** The target as printed: its URL without the password. */
  target: string;
  /** Rows per transaction of the raw clicks and the buckets. */
  batch: number;
  now: number;
  /** A progress line (stderr). */
  progress(line: string): void;
}

/**
 * What the service changes in the file moves at least one of these: a copy resumed against a
 * file whose fingerprint differs starts over instead of mixing two states.
 */
export function sourceFingerprint(sqlite: Database): string {
  const parts = sqlite
    .query<Record<string, number | string | null>, []>(
      `SELECT
        (SELECT count(*) || ':' || coalesce(max(updated_at), 0) FROM links) AS links,
        (SELECT count(*) || ':' || coalesce(max(updated_at), 0) FROM projects) AS projects,
        (SELECT count(*) || ':' || coalesce(max(updated_at), 0) FROM variants) AS variants,
        (SELECT count(*) FROM link_tags) AS tags,
        (SELECT total(clicks) || ':' || total(bots) || ':' || total(uniques) FROM link_counters) AS counters,
        (SELECT count(*) || ':' || coalesce(max(last_seen_at), 0) FROM sessions) AS sessions,
        (SELECT group_concat(id || email || password_hash || coalesce(disabled_at, '') || role) FROM accounts) AS accounts,
        (SELECT count(*) || ':' || coalesce(max(last_used_at), 0) || ':' || coalesce(max(revoked_at), 0) FROM api_keys) AS keys,
        (SELECT count(*) FROM rollups) AS rollups,
        (SELECT count(*) || ':' || coalesce(max(updated_at), 0) FROM webhooks) AS webhooks,
        (SELECT count(*) || ':' || coalesce(max(seq), 0) || ':' || count(data) FROM webhook_events) AS events,
        (SELECT count(*) || ':' || total(attempts) || ':' || count(done_at) || ':' || total(next_at) FROM webhook_deliveries) AS deliveries,
        (SELECT count(*) || ':' || coalesce(max(id), 0) FROM webhook_attempts) AS attempts`,
    )
    .get()!;
  const text = `${JSON.stringify(parts)}:${lastAssignedClickId(sqlite)}`;
  return new Bun.CryptoHasher('sha256').update(text).digest('hex');
}

/**
 * Decides from the target's state whether to begin, resume or refuse; returns where to start,
 * and what to tell the operator about it.
 */
async function startingPoint(
  sql: Pg,
  o: CopyOptions,
  fingerprint: string,
): Promise<{ state: CopyState; note: string | null }> {
  const state = await readCopyState(sql);
  if (state !== null && state.step === 'done') {
    throw new CopyRefused(`the target already holds a finished copy of ${state.source}: copy into an empty database`);
  }
  if (state !== null && state.source !== o.source) {
    throw new CopyRefused(
      `the target holds an unfinished copy of another database (${state.source}): copy into an empty database`,
    );
  }
  if (state === null) {
    const table = await firstTableWithData(sql);
    if (table !== null) {
      throw new CopyRefused(`the target database is not empty (table ${table} has rows): copy into an empty database`);
    }
    return { state: await beginCopy(sql, o.source, fingerprint, false), note: null };
  }
  if (state.fingerprint !== fingerprint) {
    return {
      state: await beginCopy(sql, o.source, fingerprint, true),
      note: `${o.source} changed since the interrupted copy: starting over`,
    };
  }
  return { state, note: `resuming the interrupted copy of ${o.source} at ${state.step}` };
}

/** Runs one step; returns the next. */
async function runStep(sqlite: Database, sql: Pg, o: CopyOptions, state: CopyState, bar: CopyProgress): Promise<Step> {
  const { step } = state;
  const plain = PLAIN_TABLES.find((t) => t.name === step);
  if (plain !== undefined) {
    bar.begin(step, countRows(sqlite, plain, o.now));
    return sql.begin(async (tx) => {
      await copyPlainTable(sqlite, tx, plain, o.now, (n) => bar.advance(n));
      return finishStep(tx, step);
    });
  }
  if (step === 'rollups') {
    bar.begin(step, countAll(sqlite, 'rollups'), rollupsBefore(sqlite, state.position));
    return copyChunks(sql, step, state.position, bar, {
      read: (from) => nextRollupChunk(sqlite, from, o.batch),
      write: writeRollupChunk,
      next: (chunk) => chunk.lastScope + 1,
    });
  }
  if (step === 'click_blocks') {
    bar.begin(step, sqliteClickCounts(sqlite).sealed, sealedBefore(sqlite, state.position));
    return copyChunks(sql, step, state.position, bar, {
      read: (after) => nextBlockChunk(sqlite, after, o.batch, uniquesFrom(o.now)),
      write: writeBlockChunk,
      next: (chunk) => chunk.lastSeg,
    });
  }
  if (step === 'click_tail') {
    bar.begin(step, sqliteClickCounts(sqlite).tail, tailBefore(sqlite, state.position));
    if (state.position === 0) await sql.begin((tx) => dropClickTailKey(tx));
    return copyChunks(sql, step, state.position, bar, {
      read: (after) => nextTailChunk(sqlite, after, o.batch, uniquesFrom(o.now)),
      write: writeTailChunk,
      next: (chunk) => chunk.lastId,
      finish: restoreClickTailKey,
    });
  }
  if (step === 'sequences') {
    return sql.begin(async (tx) => {
      await moveSequences(sqlite, tx);
      return finishStep(tx, step);
    });
  }
  throw new Error(`copy step ${step} is unknown`);
}

function countAll(sqlite: Database, table: 'rollups'): number {
  return sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n;
}

/** Buckets of the scopes before `scope` (a resumed copy's progress). */
function rollupsBefore(sqlite: Database, scope: number): number {
  return sqlite.query<{ n: number }, [number]>('SELECT count(*) AS n FROM rollups WHERE scope < ?').get(scope)!.n;
}

/** Sealed clicks of the segments up to `seg` (a resumed copy's progress). */
function sealedBefore(sqlite: Database, seg: number): number {
  return sqlite
    .query<{ n: number }, [number]>('SELECT coalesce(sum(count), 0) AS n FROM click_segments WHERE seg <= ?')
    .get(seg)!.n;
}

/** Tail clicks with id <= `id` (a resumed copy's progress). */
function tailBefore(sqlite: Database, id: number): number {
  return sqlite.query<{ n: number }, [number]>('SELECT count(*) AS n FROM click_tail WHERE id <= ?').get(id)!.n;
}

/**
 * The ids the PostgreSQL engine hands out next come after every copied one, and after every one
 * SQLite ever gave (an AUTOINCREMENT id is never given twice, even after its row went: a click,
 * a target, an event whose number a live stream resumes after, a delivery); its sealer goes on
 * after SQLite's last segment.
 */
async function moveSequences(sqlite: Database, tx: Pg): Promise<void> {
  const lastClick = lastAssignedClickId(sqlite);
  if (lastClick > 0) await tx`SELECT setval('click_ids', ${lastClick})`;
  const given = sqlite.query<{ seq: number }, [string]>('SELECT seq FROM sqlite_sequence WHERE name = ?');
  for (const table of PLAIN_TABLES) {
    if (table.textKey || table.key === 'rowid') continue;
    const sequence = await pgSequenceOf(tx, table);
    if (sequence === null) continue;
    const [copied] = await tx.unsafe(`SELECT max(${table.key}) AS m FROM ${table.name}`);
    const last = Math.max(given.get(table.name)?.seq ?? 0, Number(copied.m ?? 0));
    if (last > 0) await tx`SELECT setval(${sequence}, ${last})`;
  }
  await copySealState(sqlite, tx);
}

/** Copies and verifies; returns the verification's lines. Throws CopyRefused, or what failed. */
export async function copyToPostgres(sqlite: Database, sql: Pg, o: CopyOptions): Promise<string[]> {
  // PostgreSQL has no queue: history an import left waiting for SQLite's click writer would be lost.
  const queued = importsQueued(sqlite);
  if (queued > 0) {
    throw new CopyRefused(
      `imported history still waits for the click writer (${queued} rows in click_imports): start the server on ${o.source} once, so it counts them, then copy`,
    );
  }
  const fingerprint = sourceFingerprint(sqlite);
  const start = await startingPoint(sql, o, fingerprint);
  let state = start.state;
  o.progress(`copy-to: copying ${o.source} into ${o.target}`);
  if (start.note !== null) o.progress(`copy-to: ${start.note}`);
  const bar = new CopyProgress(o.progress);
  while (state.step !== 'verify' && state.step !== 'done') {
    state = { ...state, step: await runStep(sqlite, sql, o, state, bar), position: 0 };
  }
  const lines = await verifyCopy(sqlite, sql, o.now);
  await sql.begin((tx) => finishStep(tx, 'verify'));
  return lines;
}
