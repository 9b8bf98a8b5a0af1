/**
 * The click writer thread: its own connection to the database (on SQLite, WAL lets it write
 * while the main thread reads; on PostgreSQL a small pool of its own), its own geo reader, and
 * the same click store as inline mode (../writer.ts). Clicks arrive in slices; a commit writes
 * everything received since the last one in one transaction, a fold folds the sums of the
 * committed ones into rollups and counters (SQLite; on PostgreSQL each batch counted itself). On
 * failure the slices are discarded here: the main thread still holds the clicks and sends them
 * again.
 */

import type { GeoLevel } from '../../../config';
import type { DatabaseAddress } from '../../../db/address';
import { WalCheckpointer } from '../../../db/checkpoint';
import { openDatabase } from '../../../db/client';
import { openPostgres, type Pg } from '../../../db/postgres/client';
import { systemClock } from '../../../lib/clock';
import { HeapGuard } from '../../../lib/heap-guard';
import { serve } from '../../../lib/worker-rpc';
import { openGeoAt } from '../enrich/geo';
import { SqliteClickWriter } from '../sqlite/store';
import type { ClickWriter, ImportedCount, WriteOutcome } from '../store';
import { openClickWriter } from '../writer';
import type { FallbackVisits } from './fallback-tally';
import type { WireClick } from './record';
import { decodeSlice, type WireSlice } from './wire';

/** The writer's connections on PostgreSQL: one writes batches, one prunes and names values. */
const PG_WRITER_POOL = 2;

let store: ClickWriter | null = null;
/** What closing releases: the SQLite connection (checkpointed first) or the pool. */
let release: (() => Promise<void>) | null = null;
let received: WireClick[] = [];
let heap = new HeapGuard();
/**
 * Settles once `open` has. Messages are taken in order, but an async handler lets the next one
 * run while it awaits: PostgreSQL's open awaits the server, and a commit or fold sent right after
 * it (a flush at the start, or the stop's) would otherwise find no store and fail.
 */
let queue: Promise<unknown> = Promise.resolve();

/**
 * Runs the store's operations one at a time, in the order their messages came, the open first.
 * Messages are taken in order, but an async handler lets the next one run while it awaits: on
 * PostgreSQL the open awaits the server and writing is asynchronous, so a commit sent during the
 * open would find no store, and two commits (or a commit and a fold) side by side would commit
 * out of order on the writer's two connections.
 */
function inOrder<T>(operation: () => Promise<T>): Promise<T> {
  const run = queue.then(operation);
  queue = run.catch(() => {});
  return run;
}

export interface WriterOpenOptions {
  database: DatabaseAddress;
  geoDb: string | null;
  /** SLINK_GEO: what a click keeps of its place; absent: city. */
  geoLevel?: GeoLevel;
  ownHosts: string[];
  retentionDays?: number;
  /** The node's name (SLINK_NODE_ID), at the head of every line this thread logs, as the main thread's. */
  node?: string;
}

/** Starts every line this thread prints with its time and the node's name, as the main thread's logger does. */
function headLines(node: string): void {
  for (const method of ['log', 'error'] as const) {
    const print = console[method].bind(console);
    console[method] = (...args: unknown[]) => print(`${new Date().toISOString()} ${node}`, ...args);
  }
}

/** Opens the store on the worker's own connection (or pool); answers with the geo source. */
async function openStore(options: WriterOpenOptions): Promise<string> {
  if (options.node !== undefined) headLines(options.node);
  const geo = openGeoAt(options.geoDb, options.geoLevel);
  heap = new HeapGuard({ fixedBytes: geo.mappedBytes });
  const common = { geo, ownHosts: options.ownHosts, clock: systemClock, retentionDays: options.retentionDays ?? 0 };
  if (options.database.engine === 'postgres') {
    const sql: Pg = openPostgres(options.database.url, PG_WRITER_POOL);
    await sql`SELECT 1`;
    store = openClickWriter({ engine: 'postgres', sql }, common);
    release = () => sql.close();
    return geo.source;
  }
  const db = openDatabase(options.database.path, 'writer');
  // Every checkpoint of the running server runs here, off the event loop (db/checkpoint.ts).
  const checkpoints = new WalCheckpointer(db.$client, options.database.path);
  store = openClickWriter({ engine: 'sqlite', sqlite: db.$client }, { ...common, checkpoints });
  // The other connections' commits (the API's above all) are seen on this timer.
  checkpoints.start();
  // History another process's import queued (sqlite/imports.ts).
  watchImports();
  release = async () => {
    checkpoints.stop();
    console.log(checkpoints.describe());
    try {
      // Fold the WAL back into the database file before leaving.
      db.$client.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    } catch {
      // Another connection still reading: the next start checkpoints instead.
    }
    db.$client.close();
  };
  return geo.source;
}

const handlers = {
  /** Answers with the geo source; throws when the database or the geo file cannot be opened. */
  open(options: WriterOpenOptions): Promise<string> {
    return inOrder(() => openStore(options));
  },
  /** A slice in columns and its distinct strings (wire.ts): cheaper to send and read than JSON or structured objects. */
  add(slice: WireSlice): void {
    decodeSlice(slice, received);
  },
  discard(): void {
    received = [];
  },
  commit(): Promise<WriteOutcome> {
    // Taken at once: slices added after this message belong to the next commit.
    const batch = received;
    received = [];
    return inOrder(() => writeBatch(batch));
  },
  /** Visits answered with a fallback URL, added to their links' counters (fallback-tally.ts). */
  addFallbackVisits(visits: FallbackVisits[]): Promise<void> {
    return inOrder(async () => {
      if (!store) throw new Error('click writer is not open');
      await store.addFallbackVisits(visits);
    });
  },
  /**
   * Takes the imported history queued so far (sqlite/imports.ts) and folds it: answers with
   * the clicks taken. Also run on a timer, for imports in another process (`slink import`).
   */
  takeImports(): Promise<number> {
    return takeAllImports();
  },
  /** The imported human clicks counted since the last ask (the store's importedCounts). */
  importedCounts(): ImportedCount[] {
    return store instanceof SqliteClickWriter ? store.importedCounts() : [];
  },
  /** Answers with how many clicks were folded. */
  fold(): Promise<number> {
    return inOrder(fold);
  },
  close(): Promise<void> {
    // A close sent while opening closes what the open makes.
    return inOrder(close);
  },
};

async function writeBatch(batch: WireClick[]): Promise<WriteOutcome> {
  if (!store) throw new Error('click writer is not open');
  const folds = store instanceof SqliteClickWriter ? store.folds.count : 0;
  const outcome = await store.writeBatch(batch);
  // A batch that folded left the fold's garbage behind (see HeapGuard); on PostgreSQL every
  // batch merges buckets.
  if (!(store instanceof SqliteClickWriter) || store.folds.count !== folds) heap.check();
  // Ask for a collection after each batch, once the answer is sent (asynchronous, it does not
  // block): at saturation this thread is never idle, and JavaScriptCore, which otherwise
  // collects in idle time, let its heap grow ~200 MB further (measured with wrk; no cost in
  // throughput).
  queueMicrotask(() => Bun.gc(false));
  return outcome;
}

/** How often the writer looks for history queued by another process, ms. */
const IMPORT_POLL_MS = 250;
let importTimer: Timer | null = null;
let taking: Promise<number> | null = null;

/**
 * Takes the queue a chunk at a time, each its own turn of the store's order, so click batches
 * are written between the chunks of a large import. One taker at a time; a caller that comes
 * while one runs gets a fresh pass after it, so what it queued before asking is taken.
 */
function takeAllImports(): Promise<number> {
  const before = taking ?? Promise.resolve(0);
  const run = before
    .catch(() => 0)
    .then(async () => {
      let total = 0;
      for (;;) {
        const n = await inOrder(takeImportsOnce);
        total += n;
        if (n === 0) return total;
      }
    });
  taking = run;
  run
    .finally(() => {
      if (taking === run) taking = null;
    })
    .catch(() => {});
  return run;
}

async function takeImportsOnce(): Promise<number> {
  if (!(store instanceof SqliteClickWriter)) return 0;
  const taken = store.takeImports();
  if (taken > 0) {
    store.fold();
    heap.check();
  }
  return taken;
}

/** Whether the last take failed: logged once, and its recovery once, not every tick. */
let importsFailing = false;

function watchImports(): void {
  importTimer = setInterval(() => {
    if (taking !== null) return;
    takeAllImports().then(
      () => {
        if (importsFailing) console.log('taking imported history works again');
        importsFailing = false;
      },
      (err) => {
        if (!importsFailing) console.error(`taking imported history failed (tried again): ${String(err)}`);
        importsFailing = true;
      },
    );
  }, IMPORT_POLL_MS);
}

async function fold(): Promise<number> {
  if (!store) throw new Error('click writer is not open');
  const folded = await store.fold();
  if (folded > 0) heap.check();
  return folded;
}

async function close(): Promise<void> {
  if (importTimer !== null) clearInterval(importTimer);
  importTimer = null;
  try {
    // Counted before leaving; a fold that fails here is done by the next start instead.
    await store?.fold();
  } catch {}
  await store?.close?.();
  await release?.();
  store = null;
  release = null;
}
export type WriterHandlers = typeof handlers;

serve(handlers);
