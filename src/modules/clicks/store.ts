/**
 * The clicks module's store: an engine's click writer as the inline sink and the writer Worker
 * drive it, on their own thread. Its implementations: sqlite/store.ts (appends per batch, folds
 * the sums later) and postgres/store.ts (one transaction per batch with everything it adds);
 * writer.ts opens the configured engine's.
 */
import type { FallbackVisits } from './capture/fallback-tally';
import type { WireClick } from './capture/record';

/**
 * When either engine's writer folds during a long drain (it also folds after each drain): once
 * this many clicks are written but not counted (measured: docs/performance.md) ...
 */
export const FOLD_MAX_CLICKS = 20_000;
/** ... or once the oldest of them is this old, ms: counts lag by at most this under saturation. */
export const FOLD_MAX_MS = 1000;

export interface WriteOutcome {
  written: number;
  skipped: number;
  /** `clicks` events recorded with the batch (webhooks/public.ts); absent: none. */
  events?: number;
  /** Time spent enriching and writing the batch (and folding, when it did), in ms. */
  ms: number;
}

/** An engine's click writer (this file's header says which). */
/** A link's imported human clicks one fold counted, and its stored human clicks after that fold. */
export type ImportedCount = [linkId: string, humans: number, storedAfter: number];

export interface ClickWriter {
  /** Enriches and writes a batch; throws (nothing of it written) when the transaction fails. */
  writeBatch(batch: WireClick[]): WriteOutcome | Promise<WriteOutcome>;
  /** Folds what the written batches add to rollups and counters (0 when nothing waits); returns how many clicks. */
  fold(): number | Promise<number>;
  /** Adds visits answered with their link's fallback URL to the links' counters, in one transaction. */
  addFallbackVisits(visits: readonly FallbackVisits[]): void | Promise<void>;
  /**
   * SQLite: takes a chunk of the imported history queued (sqlite/imports.ts) into the raw clicks
   * and the sums; returns the clicks taken (0: the queue is empty). PostgreSQL has no queue: an
   * import writes on its own pool.
   */
  takeImports?(): number;
  /** SQLite: the imported human clicks folds counted since the last call (then forgotten): ImportedCount. */
  importedCounts?(): ImportedCount[];
  /** Releases what the store holds (its own pool); the caller folds first. */
  close?(): void | Promise<void>;
}
