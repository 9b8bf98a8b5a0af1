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
