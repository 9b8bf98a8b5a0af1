/**
 * The writing end of the pipeline, on one SQLite connection: enrich a batch of clicks, write
 * it in ONE transaction (raw clicks, rollups, counters), then forget finished days. Runs in the
 * writer Worker in production and inline in tests; the same code either way.
 */
import type { Database } from 'bun:sqlite';
import type { Clock } from '../../lib/clock';
import { enrichClick, type EnrichContext } from './enrich';
import type { GeoLookup } from './geo';
import type { WireClick } from './record';
import { createClickWriter, type ClickWriter } from './repo';
import { utcDay } from '../../lib/time';
import { VisitorHasher } from './visitor';

export interface WriteOutcome {
  written: number;
  skipped: number;
  /** Time spent enriching and writing the batch, in ms. */
  ms: number;
}

/**
 * The click writer's own connection checkpoints every ~32 MB of WAL instead of SQLite's 4 MB:
 * a batch of clicks dirties thousands of pages, and a page dirtied again before the checkpoint
 * is copied and synced once (`bun run bench:writer`: ~8% less time per click at 100,000 links;
 * 128 MB gained ~11% more there but nothing in `bun run bench`, for 4x the WAL on disk). Its
 * page cache is 16 MB, not the 64 MB of other connections: a batch's pages are spread over far
 * more than 64 MB anyway, so the larger cache bought no measurable speed and cost RSS.
 */
export function tuneWriterConnection(sqlite: Database): void {
  sqlite.exec('PRAGMA wal_autocheckpoint = 8192');
  sqlite.exec('PRAGMA cache_size = -16384');
}

export class ClickStore {
  private readonly write: ClickWriter;
  private readonly ctx: EnrichContext;
  private readonly hasher: VisitorHasher;
  private prunedThrough = -1;

  constructor(
    sqlite: Database,
    geo: GeoLookup,
    ownHosts: readonly string[],
    private readonly clock: Clock,
  ) {
    this.write = createClickWriter(sqlite);
    this.hasher = new VisitorHasher(sqlite);
    this.ctx = { geo, hasher: this.hasher, ownHosts };
  }

  /** Throws when the transaction fails (nothing of the batch is then written). */
  writeBatch(batch: WireClick[]): WriteOutcome {
    const started = performance.now();
    const result = this.write(batch.map((click) => enrichClick(click, this.ctx)));
    this.prune();
    return { ...result, ms: performance.now() - started };
  }

  /** Forgets salts and visitor rows of days before yesterday, one bounded batch per call. */
  private prune(): void {
    const keepFrom = utcDay(this.clock.now()) - 1;
    if (this.prunedThrough >= keepFrom) return;
    if (this.hasher.pruneBefore(keepFrom) === 0) this.prunedThrough = keepFrom;
  }
}
