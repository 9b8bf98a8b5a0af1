/**
 * The writing end of the pipeline, on one SQLite connection: enrich a batch of clicks, write
 * it in ONE transaction (raw clicks, rollups, counters), then forget finished days. Runs in the
 * writer Worker in production and inline in tests; the same code either way.
 */
import type { Database } from 'bun:sqlite';
import type { Clock } from '../../lib/clock';
import { utcDay } from '../../lib/time';
import { type EnrichContext, enrichClick } from './enrich';
import type { GeoLookup } from './geo';
import type { WireClick } from './record';
import { type ClickWriter, createClickWriter } from './repo';
import { VisitorHasher } from './visitor';

export interface WriteOutcome {
  written: number;
  skipped: number;
  /** Time spent enriching and writing the batch, in ms. */
  ms: number;
}

/**
 * The click writer's own connection checkpoints every ~128 MB of WAL instead of SQLite's 4 MB:
 * at 100,000 links a batch of 2,000 clicks dirties pages all over links, rollups, visitor days
 * and the clicks index, and a page dirtied again before the checkpoint is copied and synced
 * once (`bun run bench:writer`: 8% less time per click at 32 MB, 11% more at 128 MB). Its page
 * cache is 16 MB, not the 64 MB of other connections (less RSS under load). Measured together
 * with `bun run bench`: 16 MB with 32 MB checkpoints lost ~8% of the redirect rate, 16 MB with
 * 128 MB checkpoints kept the rate of 64 MB with 32 MB checkpoints, at ~60 MB less peak RSS.
 */
export function tuneWriterConnection(sqlite: Database): void {
  sqlite.exec('PRAGMA wal_autocheckpoint = 32768');
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
