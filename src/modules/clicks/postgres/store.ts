/**
 * The click store on PostgreSQL: each batch is enriched, then written in ONE transaction with
 * everything it adds (docs/architecture.md, "Storage"): the raw clicks appended to the tail,
 * uniques decided by the database, and one delta row (postgres/deltas.ts) saying what the batch
 * adds to the counters and rollups, which the fold (postgres/fold.ts) counts in later, as
 * SQLite's writer folds its sums: after each drain of the buffer, and during a long one every
 * FOLD_MAX_CLICKS clicks or FOLD_MAX_MS. A crash loses at most the batch in flight (a delta
 * not yet folded is folded by the next fold, of this node or another), and several writers
 * (several nodes) can write at once. What a batch needs named first (dictionary values, click
 * targets, the day's salt) and is not known here is read before its transaction, and inserted
 * there, committed on its own, only when missing: a link's dictionary value and plain click
 * target are made with the link (the links store's creation, PostgreSQL only), and a click
 * carries both from the slug index, which read them with the link (WireClick.linkValue,
 * targetId), so a link's clicks read neither; a click that carries none reads them.
 *
 * A batch's round trips: the click barrier shared (locks.ts), which of its links still exist,
 * the uniques, the ids, the tail, the delta; each a statement over arrays, never one per click.
 */
import type { Pg } from '../../../db/postgres/client';
import { intList, num } from '../../../db/postgres/client';
import { CLICK_BARRIER_LOCK, HOUSEKEEPING_LOCK, tryTransactionLock } from '../../../db/postgres/locks';
import type { Clock } from '../../../lib/clock';
import { markStep } from '../../../lib/step-cpu';
import { utcDay } from '../../../lib/time';
import { addFallbackVisitsPg, existingLinks, existingLinksWithSlugs, type FallbackVisits } from '../../links/public';
import { DIM_COUNT, PgValues, valueIdsOf } from '../../rollups/public';
import { clickEventsWantedPostgres, recordClickEventsPostgres } from '../../webhooks/public';
import type { WireClick } from '../capture/record';
import { postgresDomainHosts } from '../domain-hosts';
import { type EnrichContext, type EnrichedClick, enrichClick } from '../enrich/enrich';
import type { GeoLookup } from '../enrich/geo';
import { VisitorHasher } from '../enrich/visitor';
import type { PruneStep } from '../retention';
import { RETENTION_IDLE_MS, retainedFrom } from '../retention';
import { type ClickWriter, FOLD_MAX_CLICKS, FOLD_MAX_MS, type WriteOutcome } from '../store';
import { clickFlags, visitorBits } from '../stored-click';
import { encodeDelta } from './deltas';
import { PgFolder } from './fold';
import { pruneStepPg } from './retention';
import { PgSalts } from './salts';
import { PgSealer } from './seal';
import { PgTargets } from './targets';

export interface PgStoreOptions {
  /** SLINK_RETENTION_DAYS: raw clicks older than this many days are pruned (retention.ts); 0 keeps all. */
  retentionDays?: number;
  /** Clicks written since the last fold before a batch folds (SQLite's FOLD_MAX_CLICKS). */
  foldMaxClicks?: number;
  /** Age of the oldest clicks not folded before a batch folds, ms (SQLite's FOLD_MAX_MS). */
  foldMaxMs?: number;
  /** Clicks per sealed segment, at least (postgres/seal.ts PG_SEAL_ROWS): tests seal sooner. */
  sealRows?: number;
  /**
   * A fold due after a batch runs beside the next batches instead of before them (an import's
   * history: nothing waits on its statistics until its end, when `fold` waits for it).
   */
  foldBeside?: boolean;
}

export class PostgresClickWriter implements ClickWriter {
  private readonly values: PgValues;
  private readonly targets: PgTargets;
  private readonly salts: PgSalts;
  private readonly folder: PgFolder;
  private readonly foldMaxClicks: number;
  private readonly foldMaxMs: number;
  /** Clicks this store wrote since its last fold, and performance.now() at the first of them. */
  private unfolded = 0;
  private unfoldedSince = 0;
  /** Seals the tail in the background (postgres/seal.ts); `sealer.idle()` waits for it. */
  readonly sealer: PgSealer;
  private readonly ctx: EnrichContext;
  private readonly foldBeside: boolean;
  /** The fold running beside the batches (foldBeside), until it ends. */
  private folding: Promise<void> | null = null;
  /** Uniques of days before this one were deleted (once a day). */
  private prunedBefore = -1;
  private readonly retentionDays: number;
  /** When the next retention step may run (clock ms): later after a step that found nothing. */
  private nextRetentionAt = 0;
  /** Folds made (on its own or asked), their total and longest time, ms: the benchmark reports them. */
  readonly folds = { count: 0, ms: 0, longestMs: 0 };
  /** Raw clicks deleted by retention so far. */
  readonly retention = { steps: 0, clicks: 0 };

  /** The hosts of the domains, for the `clicks` events' records. */
  private readonly domainHosts = postgresDomainHosts();

  constructor(
    private readonly sql: Pg,
    geo: GeoLookup,
    ownHosts: readonly string[],
    private readonly clock: Clock,
    options: PgStoreOptions = {},
  ) {
    this.retentionDays = options.retentionDays ?? 0;
    this.foldMaxClicks = options.foldMaxClicks ?? FOLD_MAX_CLICKS;
    this.foldMaxMs = options.foldMaxMs ?? FOLD_MAX_MS;
    this.foldBeside = options.foldBeside === true;
    this.folder = new PgFolder(sql, clock);
    this.values = new PgValues(sql);
    this.targets = new PgTargets(sql);
    this.salts = new PgSalts(sql);
    this.sealer = new PgSealer(sql, { rows: options.sealRows });
    this.ctx = { geo, hasher: new VisitorHasher(this.salts), ownHosts };
  }

  async writeBatch(batch: WireClick[]): Promise<WriteOutcome> {
    const started = performance.now();
    // An opted-out click is never hashed: its day needs no salt (none is made for it). A set of
    // days, not an array a click: nothing allocated per click.
    const days = new Set<number>();
    for (const c of batch) if (!c.optedOut) days.add(utcDay(c.time));
    await this.salts.load(days);
    markStep('batch: salts');
    const e = batch.map((c) => enrichClick(c, this.ctx));
    markStep('batch: enrich');
    return this.writeEnriched(e, started);
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

  /**
   * Clicks enriched already; one transaction. `events: false` records no `clicks` events (an
   * import's history: it happened elsewhere, long ago); `also` runs last in that transaction (an
   * import saves there how far its history got, so both commit or neither).
   */
  async writeEnriched(
    clicks: EnrichedClick[],
    started = performance.now(),
    options: { events?: boolean; also?: (tx: Pg) => Promise<void> } = {},
  ): Promise<WriteOutcome> {
    if (clicks.length === 0) return { written: 0, skipped: 0, events: 0, ms: performance.now() - started };
    await this.salts.load([]);
    const values = this.values;
    let ids: number[][] = [];
    let linkValues: number[] = [];
    // The values and the targets not known here are read (inserted only when missing) side by side.
    const [unknown, targets] = await Promise.all([
      values.ensure(() => {
        ids = clicks.map((c) => valueIdsOf(values, c));
        // The link's value the click carried (the slug index's), else the dictionary's.
        linkValues = clicks.map((c) => c.linkValue || values.idOf('link', '', c.linkId));
      }),
      this.targets.idsOf(clicks),
    ]);
    markStep('batch: naming');
    // An id unknown while asked is 0: only those are asked again.
    if (unknown > 0) {
      clicks.forEach((c, i) => {
        if (ids[i]!.includes(0)) ids[i] = valueIdsOf(values, c);
        if (linkValues[i] === 0) linkValues[i] = values.idOf('link', '', c.linkId);
      });
    }
    const at = this.clock.now();
    const withEvents = options.events !== false;
    const { written, events } = await this.sql.begin(async (tx) => {
      markStep('batch: begin');
      const out = await this.append(tx, clicks, ids, linkValues, targets, at, withEvents);
      await options.also?.(tx);
      return out;
    });
    markStep('batch: commit');
    if (written > 0) {
      if (this.unfolded === 0) this.unfoldedSince = performance.now();
      this.unfolded += written;
    }
    const due = this.unfolded >= this.foldMaxClicks || performance.now() - this.unfoldedSince >= this.foldMaxMs;
    if (this.unfolded > 0 && due) {
      // One fold at a time: a batch written meanwhile is counted by it or the next.
      if (!this.foldBeside) await this.foldAfterBatch();
      else
        this.folding ??= this.foldAfterBatch().finally(() => {
          this.folding = null;
        });
    }
    await this.pruneUniques();
    await this.retain();
    this.sealer.sealSoon();
    markStep('batch: prune, retain, seal');
    return { written, skipped: clicks.length - written, events, ms: performance.now() - started };
  }

  private async append(
    tx: Pg,
    clicks: EnrichedClick[],
    ids: number[][],
    linkValues: number[],
    targets: number[],
    at: number,
    withEvents: boolean,
  ): Promise<{ written: number; events: number }> {
    // Two round trips, each its statements pipelined (executed in order on this connection).
    // First: a link's deletion, and a sealer's horizon, wait for this batch (locks.ts,
    // postgres/seal.ts); then which links still exist and the uniques. The uniques are asked for
    // every click, a deleted link's too (its rows are harmless: its value is never reused, and
    // they go with the day's others).
    const linkIds = clicks.map((c) => c.linkId);
    const visitors = clicks.map((c) => visitorBits(c.visitorHash));
    const asked = Promise.all([
      tx`SELECT pg_advisory_xact_lock_shared(${CLICK_BARRIER_LOCK})`,
      withEvents ? clickEventsWantedPostgres(tx, at) : false,
      existingLinks(tx, linkIds),
      this.firstVisits(tx, clicks, linkValues, visitors),
    ]);
    markStep('batch: round one, statements built');
    const [, wanted, existing, first] = await asked;
    markStep('batch: round one, awaited');
    // A link deleted after the click: nothing to attach it to.
    const slugs = wanted ? await existingLinksWithSlugs(tx, linkIds) : null;
    const kept = slugs ?? existing;
    const rows: number[] = [];
    for (let i = 0; i < clicks.length; i++) if (kept.has(clicks[i]!.linkId)) rows.push(i);
    if (rows.length === 0) return { written: 0, events: 0 };
    const n = rows.length;
    const link = new Int32Array(n);
    const time = new Float64Array(n);
    const target = new Int32Array(n);
    const dims = Array.from({ length: DIM_COUNT }, () => new Int32Array(n));
    const visitor: bigint[] = new Array(n);
    const flags = new Int16Array(n);
    rows.forEach((i, k) => {
      const c = clicks[i]!;
      link[k] = linkValues[i]!;
      time[k] = c.time;
      target[k] = targets[i]!;
      const clickIds = ids[i]!;
      for (let d = 0; d < DIM_COUNT; d++) dims[d]![k] = clickIds[d]!;
      visitor[k] = visitors[i]!;
      flags[k] = clickFlags(c, first.has(i));
    });
    // Ids in the tail's own statement, unless the events need them: not a range set aside with
    // setval, as another writer may take ids in between (ids stay unique).
    const clickIds =
      slugs === null
        ? null
        : (await tx`SELECT nextval('click_ids')::float8 AS id FROM generate_series(1, ${n})`.values())
            .map((r: number[]) => r[0]!)
            .sort((x: number, y: number) => x - y);
    markStep('batch: rows');
    const i4 = (values: ArrayLike<number>) => tx`${intList(values)}::int4[]`;
    const i8 = (values: ArrayLike<number | bigint>) => tx`${intList(values)}::int8[]`;
    const written = Promise.all([
      tx`INSERT INTO click_tail (link, id, time, target, country, city, device, os, browser, referrer, traffic,
          language, visitor, flags)
        SELECT u.link, ${clickIds === null ? tx`nextval('click_ids')` : tx`u.id`}, u.time, u.target, u.d0, u.d1, u.d2,
          u.d3, u.d4, u.d5, u.d6, u.d7, u.visitor, u.flags
        FROM unnest(${i4(link)}, ${i8(clickIds ?? [])}, ${i8(time)}, ${i4(target)}, ${i4(dims[0]!)}, ${i4(dims[1]!)},
          ${i4(dims[2]!)}, ${i4(dims[3]!)}, ${i4(dims[4]!)}, ${i4(dims[5]!)}, ${i4(dims[6]!)}, ${i4(dims[7]!)}, ${i8(visitor)},
          ${intList(flags)}::int2[])
          AS u(link, id, time, target, d0, d1, d2, d3, d4, d5, d6, d7, visitor, flags)`,
      tx`INSERT INTO click_deltas (data) VALUES (${encodeDelta(clicks, rows, first, ids, linkValues)})`,
    ]);
    markStep('batch: round two, statements built');
    await written;
    markStep('batch: round two, awaited');
    const events =
      slugs === null || clickIds === null
        ? 0
        : await recordClickEventsPostgres(
            tx,
            rows.map((i, k) => ({ id: clickIds[k]!, click: clicks[i]! })),
            at,
            slugs,
            (domainIds) => this.domainHosts(tx, domainIds),
          );
    return { written: n, events };
  }

  /**
   * The clicks that are a first visit of their (UTC day, link, visitor): a human click whose
   * triple the database did not have. The first of a batch's clicks with a triple takes it.
   */
  private async firstVisits(
    tx: Pg,
    clicks: EnrichedClick[],
    linkValues: number[],
    visitors: bigint[],
  ): Promise<Set<number>> {
    const byTriple = new Set<string>();
    /** The click of each triple asked for. */
    const clickOf: number[] = [];
    const day: number[] = [];
    const link: number[] = [];
    const visitor: bigint[] = [];
    const first = new Set<number>();
    clicks.forEach((c, i) => {
      // An opted-out click adds no visitor, nor an imported one: neither has a visitor hash. An
      // imported one its source recorded as a first visit is one (no row: nothing to match).
      if (c.bot || c.optedOut) return;
      if (c.visitorHash === '') {
        if (c.firstVisit === true) first.add(i);
        return;
      }
      // The hash's text, not its bits' (the same 16 hex digits): no number turned into text.
      const key = `${c.day}|${linkValues[i]}|${c.visitorHash}`;
      if (byTriple.has(key)) return;
      byTriple.add(key);
      clickOf.push(i);
      day.push(c.day);
      link.push(linkValues[i]!);
      visitor.push(visitors[i]!);
    });
    if (day.length === 0) return first;
    // Inserted in one order (day, link, visitor) by every writer: two batches never wait on each
    // other's rows in opposite orders. Back: the positions inserted (not there before), one array.
    const [row] = await tx`WITH u AS (
        SELECT * FROM unnest(${intList(day)}::int4[], ${intList(link)}::int4[], ${intList(visitor)}::int8[])
          WITH ORDINALITY AS u(day, link, visitor, ord)),
      ins AS (INSERT INTO click_uniques (day, link, visitor)
        SELECT day, link, visitor FROM u ORDER BY day, link, visitor
        ON CONFLICT DO NOTHING RETURNING day, link, visitor)
      SELECT array_agg(u.ord::int4) AS firsts FROM ins JOIN u USING (day, link, visitor)`;
    const firsts = (row?.firsts ?? []) as ArrayLike<number | string>;
    for (let k = 0; k < firsts.length; k++) first.add(clickOf[num(firsts[k]!) - 1]!);
    return first;
  }

  /** Uniques and salts of days before yesterday go, once a day. Never throws: the batch is committed. */
  private async pruneUniques(): Promise<void> {
    const keepFrom = utcDay(this.clock.now()) - 1;
    if (this.prunedBefore >= keepFrom) return;
    try {
      // One node prunes for all (locks.ts); the others try again after their next batch.
      const done = await this.sql.begin(async (tx) => {
        if (!(await tryTransactionLock(tx, HOUSEKEEPING_LOCK))) return false;
        await tx`DELETE FROM click_uniques WHERE day < ${keepFrom}`;
        await this.salts.deleteBefore(tx, keepFrom);
        return true;
      });
      if (!done) return;
      this.salts.pruneBefore(keepFrom);
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

  addFallbackVisits(visits: readonly FallbackVisits[]): Promise<void> {
    return addFallbackVisitsPg(this.sql, visits);
  }

  /** Counts every written batch in (postgres/fold.ts); returns the clicks counted. */
  async fold(): Promise<number> {
    await this.folding;
    const started = performance.now();
    this.unfolded = 0;
    const counted = await this.folder.fold();
    const ms = performance.now() - started;
    this.folds.count++;
    this.folds.ms += ms;
    this.folds.longestMs = Math.max(this.folds.longestMs, ms);
    return counted;
  }

  /** A fold a long drain makes; never throws: the batch before it is committed, and its delta waits for the next fold. */
  private async foldAfterBatch(): Promise<void> {
    try {
      await this.fold();
    } catch (err) {
      console.error(`counting written clicks failed (tried again after the next batch): ${String(err)}`);
    }
  }
}
