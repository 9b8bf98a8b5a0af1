/**
 * The click store on PostgreSQL: each batch is enriched, then written in ONE transaction with
 * everything it adds (docs/architecture.md, "Storage"): the raw clicks appended to the tail,
 * uniques decided by the database, the link and variant counters, the rollup buckets. A crash
 * loses at most the batch in flight, and nothing is left to fold at the next start; several
 * writers (several nodes) can write at once. What a batch needs named first (dictionary values,
 * click targets, the day's salt) is inserted before its transaction, committed on its own.
 *
 * A transaction's round trips: lock the batch's links' counters (which also says which links
 * still exist), take the ids, decide the uniques, append the tail, bump the counters, then the
 * rollups (rollups/postgres/buckets.ts); each a statement over arrays, never one per click.
 */
import type { Pg } from '../../../db/postgres/client';
import { num } from '../../../db/postgres/client';
import { CLICK_BARRIER_LOCK } from '../../../db/postgres/locks';
import type { Clock } from '../../../lib/clock';
import { utcDay } from '../../../lib/time';
import { bumpLinkCounters, lockLinkCounters } from '../../links/counters';
import { DIM_COUNT, PendingSums, PgRollupWriter, PgValues, valueIdsOf } from '../../rollups/public';
import { bumpVariantCounters } from '../../variants/counters';
import type { WireClick } from '../capture/record';
import type { ClickWriter, WriteOutcome } from '../capture/sink';
import { type EnrichContext, type EnrichedClick, enrichClick } from '../enrich/enrich';
import type { GeoLookup } from '../enrich/geo';
import { VisitorHasher } from '../enrich/visitor';
import { RETENTION_IDLE_MS, retainedFrom } from '../retention';
import type { PruneStep } from '../sqlite/retention';
import { FLAG_BOT, FLAG_FIRST_OF_DAY, visitorBits } from '../sqlite/tail-append';
import { pruneStepPg } from './retention';
import { PgSalts } from './salts';
import { PgSealer } from './seal';
import { PgTargets } from './targets';

export interface PgStoreOptions {
  /** SLINK_RETENTION_DAYS: raw clicks older than this many days are pruned (retention.ts); 0 keeps all. */
  retentionDays?: number;
  /** Clicks per sealed segment, at least (postgres/seal.ts PG_SEAL_ROWS): tests seal sooner. */
  sealRows?: number;
}

export class PgClickStore implements ClickWriter {
  private readonly values: PgValues;
  private readonly targets: PgTargets;
  private readonly salts: PgSalts;
  private readonly rollups = new PgRollupWriter();
  /** Seals the tail in the background (postgres/seal.ts); `sealer.idle()` waits for it. */
  readonly sealer: PgSealer;
  private readonly ctx: EnrichContext;
  /** Uniques of days before this one were deleted (once a day). */
  private prunedBefore = -1;
  private readonly retentionDays: number;
  /** When the next retention step may run (clock ms): later after a step that found nothing. */
  private nextRetentionAt = 0;
  /** Raw clicks deleted by retention so far. */
  readonly retention = { steps: 0, clicks: 0 };

  constructor(
    private readonly sql: Pg,
    geo: GeoLookup,
    ownHosts: readonly string[],
    private readonly clock: Clock,
    options: PgStoreOptions = {},
  ) {
    this.retentionDays = options.retentionDays ?? 0;
    this.values = new PgValues(sql);
    this.targets = new PgTargets(sql);
    this.salts = new PgSalts(sql);
    this.sealer = new PgSealer(sql, { rows: options.sealRows });
    this.ctx = { geo, hasher: new VisitorHasher(this.salts), ownHosts };
  }

  async writeBatch(batch: WireClick[]): Promise<WriteOutcome> {
    const started = performance.now();
    await this.salts.load(batch.map((c) => utcDay(c.time)));
    return this.writeEnriched(
      batch.map((c) => enrichClick(c, this.ctx)),
      started,
    );
  }

  /** The facts stored of a captured click (the spill replay of an older release's file). */
  enrich(click: WireClick): EnrichedClick {
    return enrichClick(click, this.ctx);
  }

  /** Makes the salts of these days known (stored first when new), before `enrich` hashes their clicks. */
  loadSalts(days: Iterable<number>): Promise<void> {
    return this.salts.load(days);
  }

  /** Stores a salt a spill file carries for its day, unless the day has one. */
  adoptSalt(day: number, salt: string): void {
    this.salts.adopt(day, salt);
  }

  /** Clicks enriched already; one transaction. */
  async writeEnriched(clicks: EnrichedClick[], started = performance.now()): Promise<WriteOutcome> {
    if (clicks.length === 0) return { written: 0, skipped: 0, ms: performance.now() - started };
    await this.salts.load([]);
    const values = this.values;
    await values.ensure(() => {
      for (const c of clicks) {
        valueIdsOf(values, c);
        values.idOf('link', '', c.linkId);
      }
    });
    const ids = clicks.map((c) => valueIdsOf(values, c));
    const linkValues = clicks.map((c) => values.idOf('link', '', c.linkId));
    const targets = await this.targets.idsOf(clicks);
    let written = 0;
    try {
      written = await this.sql.begin((tx) => this.append(tx, clicks, ids, linkValues, targets));
    } catch (err) {
      this.rollups.dropCache();
      throw err;
    }
    await this.pruneUniques();
    await this.retain();
    this.sealer.sealSoon();
    return { written, skipped: clicks.length - written, ms: performance.now() - started };
  }

  private async append(
    tx: Pg,
    clicks: EnrichedClick[],
    ids: number[][],
    linkValues: number[],
    targets: number[],
  ): Promise<number> {
    // First: a sealer's horizon waits for this batch (postgres/seal.ts).
    await tx`SELECT pg_advisory_xact_lock_shared(${CLICK_BARRIER_LOCK})`;
    // The link was deleted after the click: nothing to attach it to.
    const kept = await lockLinkCounters(
      tx,
      clicks.map((c) => c.linkId),
    );
    const rows = clicks.flatMap((c, i) => (kept.has(c.linkId) ? [i] : []));
    if (rows.length === 0) return 0;
    const first = await this.firstVisits(tx, clicks, linkValues, rows);
    // Not a range set aside with setval: another writer may take ids in between (ids stay unique).
    const idRows = await tx`SELECT nextval('click_ids') AS id FROM generate_series(1, ${rows.length})`;
    const clickIds = idRows.map((r: { id: string }) => r.id).sort((a: string, b: string) => num(a) - num(b));
    const column = (pick: (i: number) => number | string) => rows.map(pick);
    const dims = Array.from({ length: DIM_COUNT }, (_, d) =>
      tx.array(
        column((i) => ids[i]![d]!),
        'int4',
      ),
    );
    await tx`INSERT INTO click_tail (link, id, time, target, country, city, device, os, browser, referrer, traffic,
        language, visitor, flags)
      SELECT * FROM unnest(${tx.array(
        column((i) => linkValues[i]!),
        'int4',
      )}::int4[], ${tx.array(clickIds, 'int8')}::int8[], ${tx.array(
        column((i) => clicks[i]!.time),
        'int8',
      )}::int8[], ${tx.array(
        column((i) => targets[i]!),
        'int4',
      )}::int4[], ${dims[0]}::int4[], ${dims[1]}::int4[], ${dims[2]}::int4[], ${dims[3]}::int4[], ${dims[4]}::int4[],
        ${dims[5]}::int4[], ${dims[6]}::int4[], ${dims[7]}::int4[], ${tx.array(
          column((i) => visitorBits(clicks[i]!.visitorHash).toString()),
          'int8',
        )}::int8[], ${tx.array(
          column((i) => (clicks[i]!.bot ? FLAG_BOT : 0) | (first.has(i) ? FLAG_FIRST_OF_DAY : 0)),
          'int2',
        )}::int2[])`;
    const pending = new PendingSums();
    for (const i of rows) pending.add(clicks[i]!, first.has(i), ids[i]!, linkValues[i]!);
    await bumpLinkCounters(
      tx,
      [...pending.linksInOrder()].map((slot) => ({ id: pending.linkId(slot), ...pending.counters(slot) })),
    );
    await bumpVariantCounters(tx, pending.variants);
    await this.rollups.add(tx, pending, kept);
    return rows.length;
  }

  /**
   * The rows that are a first visit of their (UTC day, link, visitor): a human click whose
   * triple the database did not have. The first of a batch's clicks with a triple takes it.
   */
  private async firstVisits(
    tx: Pg,
    clicks: EnrichedClick[],
    linkValues: number[],
    rows: number[],
  ): Promise<Set<number>> {
    const byTriple = new Map<string, number>();
    for (const i of rows) {
      const c = clicks[i]!;
      if (c.bot) continue;
      const key = `${c.day}|${linkValues[i]}|${visitorBits(c.visitorHash)}`;
      if (!byTriple.has(key)) byTriple.set(key, i);
    }
    const first = new Set<number>();
    if (byTriple.size === 0) return first;
    const keys = [...byTriple.keys()].sort();
    const parts = keys.map((k) => k.split('|'));
    const inserted = await tx`INSERT INTO click_uniques (day, link, visitor)
      SELECT * FROM unnest(${tx.array(
        parts.map((p) => Number(p[0])),
        'int4',
      )}::int4[], ${tx.array(
        parts.map((p) => Number(p[1])),
        'int4',
      )}::int4[], ${tx.array(
        parts.map((p) => p[2]!),
        'int8',
      )}::int8[])
      ON CONFLICT DO NOTHING RETURNING day, link, visitor`;
    for (const r of inserted) first.add(byTriple.get(`${r.day}|${r.link}|${r.visitor}`)!);
    return first;
  }

  /** Uniques and salts of days before yesterday go, once a day. Never throws: the batch is committed. */
  private async pruneUniques(): Promise<void> {
    const keepFrom = utcDay(this.clock.now()) - 1;
    if (this.prunedBefore >= keepFrom) return;
    try {
      await this.sql`DELETE FROM click_uniques WHERE day < ${keepFrom}`;
      await this.salts.deleteBefore(keepFrom);
      this.prunedBefore = keepFrom;
    } catch {
      // Tried again after the next batch.
    }
  }

  /**
   * One retention step when SLINK_RETENTION_DAYS is set and one is due (postgres/retention.ts);
   * returns what it deleted. Never throws: the batch before it is committed, and a failed step is
   * tried again after the next batch.
   */
  async retain(): Promise<PruneStep> {
    const now = this.clock.now();
    const from = retainedFrom(now, this.retentionDays);
    if (from === null || now < this.nextRetentionAt) return { kind: 'none' };
    try {
      const step = await pruneStepPg(this.sql, from);
      if (step.kind === 'none') this.nextRetentionAt = now + RETENTION_IDLE_MS;
      else {
        this.retention.steps++;
        this.retention.clicks += step.clicks;
      }
      return step;
    } catch (err) {
      console.error(`pruning old clicks failed (tried again after the next batch): ${String(err)}`);
      return { kind: 'none' };
    }
  }

  /** Nothing waits to be folded: every batch counted itself. */
  fold(): number {
    return 0;
  }
}
