/**
 * The click writer thread: its own SQLite connection (WAL lets it write while the main thread
 * reads), its own geo reader, and the same ClickStore as inline mode. Clicks arrive in slices;
 * a commit writes everything received since the last one in one transaction, a fold folds the
 * sums of the committed ones into rollups and counters. On failure the slices are discarded
 * here: the main thread still holds the clicks and sends them again.
 */
import { WalCheckpointer } from '../../../db/checkpoint';
import { type Db, openDatabase } from '../../../db/client';
import { systemClock } from '../../../lib/clock';
import { HeapGuard } from '../../../lib/heap-guard';
import { serve } from '../../../lib/worker-rpc';
import type { WireClick } from '../capture/record';
import { openGeo } from '../enrich/geo';
import { ClickStore, type WriteOutcome } from './store';

let db: Db | null = null;
let store: ClickStore | null = null;
/** Every checkpoint of the running server runs here, off the event loop (db/checkpoint.ts). */
let checkpoints: WalCheckpointer | null = null;
let received: WireClick[] = [];
let heap = new HeapGuard();

const handlers = {
  /** Answers with the geo source; throws when the database or the geo file cannot be opened. */
  open(options: { dbPath: string; geoDb: string | null; ownHosts: string[]; retentionDays?: number }): string {
    db = openDatabase(options.dbPath, 'writer');
    const geo = openGeo(options.geoDb);
    heap = new HeapGuard({ fixedBytes: geo.mappedBytes });
    checkpoints = new WalCheckpointer(db.$client, options.dbPath);
    store = new ClickStore(db.$client, geo, options.ownHosts, systemClock, {
      retentionDays: options.retentionDays ?? 0,
      checkpoints,
    });
    // The other connections' commits (the API's above all) are seen on this timer.
    checkpoints.start();
    return geo.source;
  },
  /** A slice as JSON text: cheaper for the event loop to copy than structured objects. */
  add(json: string): void {
    for (const click of JSON.parse(json) as WireClick[]) received.push(click);
  },
  discard(): void {
    received = [];
  },
  commit(): WriteOutcome {
    const batch = received;
    received = [];
    if (!store) throw new Error('click writer is not open');
    const folds = store.folds.count;
    const outcome = store.writeBatch(batch);
    // A batch that folded left the fold's garbage behind (see HeapGuard).
    if (store.folds.count !== folds) heap.check();
    // Ask for a collection after each batch, once the answer is sent (asynchronous, it does not
    // block): at saturation this thread is never idle, and JavaScriptCore, which otherwise
    // collects in idle time, let its heap grow ~200 MB further (measured with wrk; no cost in
    // throughput).
    queueMicrotask(() => Bun.gc(false));
    return outcome;
  },
  /** Answers with how many clicks were folded. */
  fold(): number {
    if (!store) throw new Error('click writer is not open');
    const folded = store.fold();
    if (folded > 0) heap.check();
    return folded;
  },
  close(): void {
    try {
      // Counted before leaving; a fold that fails here is done by the next start instead.
      store?.fold();
    } catch {}
    checkpoints?.stop();
    if (checkpoints) console.log(`${new Date().toISOString()} ${checkpoints.describe()}`);
    try {
      // Fold the WAL back into the database file before leaving.
      db?.$client.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    } catch {
      // Another connection still reading: the next start checkpoints instead.
    }
    db?.$client.close();
    db = null;
    store = null;
    checkpoints = null;
  },
};
export type WriterHandlers = typeof handlers;

serve(handlers);
