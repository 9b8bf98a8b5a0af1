/**
 * The rollup buckets on SQLite: reading, merging and writing them inside the caller's
 * transaction (the fold, the rebuild, the upgrade), and taking a deleted link's out.
 */
import type { Database, Statement } from 'bun:sqlite';
import type { PendingHour } from '../pending';
import { type Counts, DenseCounts, decodeCounts, encodeCounts, mergeCounts, mergeEncoded } from '../rollup-codec';
import { linkValueId } from '../rollup-values';
import { type Bucket, GRAIN_CODE, type Grain, WORKSPACE } from '../rollups';
import { daysFromHours, linkDaysBefore } from './link-days';

/** A workspace bucket as the writer keeps it decoded. */
export interface WorkspaceSums {
  clicks: number;
  uniques: number;
  counts: DenseCounts;
}

interface StoredBucket {
  clicks: number;
  uniques: number;
  data: Uint8Array;
}

/** A link's bucket as the fold holds it (RollupStore.hold); `data` null: none stored yet. */
interface HeldBucket {
  start: number;
  bot: number;
  clicks: number;
  uniques: number;
  data: Uint8Array | null;
  added: boolean;
}

/** Workspace buckets the writer keeps decoded (see RollupStore), at most this many. */
const CACHED_BUCKETS = 8;

/**
 * Reads, merges and writes buckets; every call runs inside the caller's transaction.
 *
 * With `cacheWorkspace` (the click writer), the workspace buckets stay decoded in memory between
 * batches: they count every link (dim `link`), so with 100,000 links one holds ~100,000 values
 * and reading and decoding it for every batch cost more than the batch's own clicks. A cached
 * bucket is trusted only while the row still has the clicks and uniques it was written with;
 * anything else that writes workspace buckets (a link deleted with its clicks, a rebuild) changes
 * them, and the bucket is read again.
 */
export class RollupStore {
  private readonly select: Statement<StoredBucket, [number, number, number, number]>;
  private readonly span: Statement<StoredBucket & { start: number; bot: number }, [number, number, number, number]>;
  /**
   * A link's buckets held by the fold (hold()), by start * 2 + bot, one map per grain; `heldScope`
   * -1: none held. Added to in memory, written once each by release().
   */
  private readonly held = { hour: new Map<number, HeldBucket>(), day: new Map<number, HeldBucket>() };
  private heldScope = -1;
  private heldDays = false;
  private readonly totals: Statement<{ clicks: number; uniques: number }, [number, number, number, number]>;
  private readonly upsert: Statement;
  private readonly remove: Statement;
  private readonly cache: Map<string, WorkspaceSums> | null;
  /** Workspace buckets the open fold adds to (workspace()). */
  private readonly touched = new Map<string, { grain: Grain; start: number; bot: boolean; sums: WorkspaceSums }>();

  constructor(sqlite: Database, options: { cacheWorkspace?: boolean } = {}) {
    this.select = sqlite.prepare(
      'SELECT clicks, uniques, data FROM rollups WHERE scope = ? AND grain = ? AND start = ? AND bot = ?',
    );
    this.span = sqlite.prepare(
      'SELECT start, bot, clicks, uniques, data FROM rollups WHERE scope = ? AND grain = ? AND start >= ? AND start <= ?',
    );
    // Columns before the blob only: SQLite then never reads the blob's overflow pages.
    this.totals = sqlite.prepare(
      'SELECT clicks, uniques FROM rollups WHERE scope = ? AND grain = ? AND start = ? AND bot = ?',
    );
    this.upsert = sqlite.prepare(
      `INSERT INTO rollups (scope, grain, start, bot, clicks, uniques, data) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (scope, grain, start, bot) DO UPDATE SET clicks = excluded.clicks, uniques = excluded.uniques, data = excluded.data`,
    );
    this.remove = sqlite.prepare('DELETE FROM rollups WHERE scope = ? AND grain = ? AND start = ? AND bot = ?');
    this.cache = options.cacheWorkspace ? new Map() : null;
  }

  /** The transaction that used the cache rolled back: what it holds may never have been written. */
  dropCache(): void {
    this.cache?.clear();
    this.touched.clear();
  }

  /**
   * Adds one of a link's pending hours to its bucket of `grain` starting at `start` (the hour's
   * own, or its day's): the fold's path, its sorted pairs merged into the stored bytes with no
   * map between.
   */
  addHour(scope: number, grain: Grain, start: number, hour: PendingHour): void {
    const g = GRAIN_CODE[grain];
    const b = hour.bot ? 1 : 0;
    if (scope === this.heldScope && (grain === 'hour' || this.heldDays)) {
      const held = this.held[grain];
      let bucket = held.get(start * 2 + b);
      if (bucket === undefined) {
        bucket = { start, bot: b, clicks: 0, uniques: 0, data: null, added: false };
        held.set(start * 2 + b, bucket);
      }
      bucket.data = mergeEncoded(bucket.data, hour.ids, hour.counts, hour.size);
      bucket.clicks += hour.clicks;
      bucket.uniques += hour.uniques;
      bucket.added = true;
      return;
    }
    const stored = this.select.get(scope, g, start, b);
    const data = mergeEncoded(stored?.data ?? null, hour.ids, hour.counts, hour.size);
    const clicks = (stored?.clicks ?? 0) + hour.clicks;
    this.upsert.run(scope, g, start, b, clicks, (stored?.uniques ?? 0) + hour.uniques, data);
  }

  /**
   * Holds a link's buckets for the addHour calls that follow: its hour buckets from `hours.from`
   * to `hours.to` (hour starts) and, when given, its day buckets over `days`, each span read in
   * one statement, every addHour to them merged in memory and each bucket written once by
   * release(). The fold added each hour with a read and an upsert, and each to its day bucket
   * too for a day already rolled up (an import's history: ten hours of a day, ten reads and
   * upserts of one row); 8% of an import at 100,000 links (docs/performance.md). Every addHour
   * of the link until release() must fall in the spans.
   */
  hold(scope: number, hours: { from: number; to: number }, days: { from: number; to: number } | null): void {
    this.discard();
    for (const row of this.span.all(scope, GRAIN_CODE.hour, hours.from, hours.to))
      this.held.hour.set(row.start * 2 + row.bot, { ...row, added: false });
    if (days !== null)
      for (const row of this.span.all(scope, GRAIN_CODE.day, days.from, days.to))
        this.held.day.set(row.start * 2 + row.bot, { ...row, added: false });
    this.heldScope = scope;
    this.heldDays = days !== null;
  }

  /** Writes the held buckets added to, and holds none. */
  release(): void {
    const scope = this.heldScope;
    for (const grain of ['hour', 'day'] as const)
      for (const b of this.held[grain].values())
        if (b.added) this.upsert.run(scope, GRAIN_CODE[grain], b.start, b.bot, b.clicks, b.uniques, b.data!);
    this.discard();
  }

  /** Holds none, writing nothing (the fold's transaction failed). */
  discard(): void {
    this.held.hour.clear();
    this.held.day.clear();
    this.heldScope = -1;
    this.heldDays = false;
  }

  /**
   * A workspace bucket decoded, for the fold to add to in place (with `cacheWorkspace`); what
   * it adds is written by writeWorkspace, at the end of the same transaction.
   */
  workspace(grain: Grain, start: number, bot: boolean): WorkspaceSums {
    const key = `${grain}|${start}|${bot ? 1 : 0}`;
    let sums = this.touched.get(key)?.sums;
    if (sums === undefined) {
      const read = this.read({ scope: WORKSPACE, grain, start }, bot ? 1 : 0);
      if (!(read.counts instanceof DenseCounts)) throw new Error('workspace sums need cacheWorkspace');
      sums = read as WorkspaceSums;
      this.touched.set(key, { grain, start, bot, sums });
    }
    return sums;
  }

  /** Writes the workspace buckets added to since the last call. */
  writeWorkspace(): void {
    for (const { grain, start, bot, sums } of this.touched.values())
      this.upsert.run(
        WORKSPACE,
        GRAIN_CODE[grain],
        start,
        bot ? 1 : 0,
        sums.clicks,
        sums.uniques,
        sums.counts.encode(),
      );
    this.touched.clear();
  }

  /** The stored totals and decoded counts of a bucket (empty when it has none). */
  private read(
    b: Pick<Bucket, 'scope' | 'grain' | 'start'>,
    bot: number,
  ): { clicks: number; uniques: number; counts: Counts | DenseCounts } {
    const grain = GRAIN_CODE[b.grain];
    if (this.cache === null || b.scope !== WORKSPACE) {
      const stored = this.select.get(b.scope, grain, b.start, bot);
      return { clicks: stored?.clicks ?? 0, uniques: stored?.uniques ?? 0, counts: decodeCounts(stored?.data ?? null) };
    }
    const key = `${b.grain}|${b.start}|${bot}`;
    const stored = this.totals.get(b.scope, grain, b.start, bot) ?? { clicks: 0, uniques: 0 };
    let cached = this.cache.get(key);
    if (cached === undefined || cached.clicks !== stored.clicks || cached.uniques !== stored.uniques) {
      const row = stored.clicks === 0 ? null : this.select.get(b.scope, grain, b.start, bot);
      cached = {
        clicks: stored.clicks,
        uniques: stored.uniques,
        counts: DenseCounts.fromBlob(row?.data ?? null, { sparse: true }),
      };
      this.cache.set(key, cached);
      // Buckets of hours and days gone by are written no more: keep the newest few.
      if (this.cache.size > CACHED_BUCKETS) this.cache.delete(this.cache.keys().next().value!);
    }
    return cached;
  }

  /** Adds (sign 1) or takes away (sign -1) buckets' counts. */
  apply(buckets: Iterable<Bucket>, sign: 1 | -1 = 1): void {
    for (const b of buckets) {
      const bot = b.bot ? 1 : 0;
      const grain = GRAIN_CODE[b.grain];
      const stored = this.read(b, bot);
      const clicks = stored.clicks + sign * b.clicks;
      if (clicks <= 0) {
        if (stored.clicks > 0) this.remove.run(b.scope, grain, b.start, bot);
        stored.clicks = 0;
        stored.uniques = 0;
        stored.counts.clear();
        continue;
      }
      let data: Uint8Array;
      if (stored.counts instanceof DenseCounts) {
        stored.counts.merge(b.counts, sign);
        data = stored.counts.encode();
      } else data = encodeCounts(mergeCounts(stored.counts, b.counts, sign));
      stored.clicks = clicks;
      stored.uniques += sign * b.uniques;
      this.upsert.run(b.scope, grain, b.start, bot, clicks, stored.uniques, data);
    }
  }
}

/**
 * Before a link is deleted: take its buckets out of the workspace's, then drop them (and its
 * day mark), so workspace statistics never count a link that no longer exists. Its days from
 * the mark on are its hour buckets summed (link-days.ts): a day bucket there may be stale.
 * Runs in the caller's transaction.
 */
export function forgetLinkRollups(sqlite: Database, linkId: string): void {
  const linkValue = linkValueId(sqlite, linkId);
  // Never clicked: no value id, no buckets.
  if (linkValue === null) return;
  // The link's buckets as the statistics read them: its hours, its days before the mark as
  // stored, and its days from the mark on summed from its hours. Each goes out of the
  // workspace's bucket of the same grain, start and bot flag, with the link's own count.
  const stored = sqlite
    .query<{ grain: number; start: number; bot: number; clicks: number; uniques: number; data: Uint8Array }, [number]>(
      'SELECT grain, start, bot, clicks, uniques, data FROM rollups WHERE scope = ?',
    )
    .all(linkValue)
    .map(
      (r): Bucket => ({
        scope: WORKSPACE,
        grain: r.grain === GRAIN_CODE.day ? 'day' : 'hour',
        start: r.start,
        bot: r.bot === 1,
        clicks: r.clicks,
        uniques: r.uniques,
        counts: decodeCounts(r.data),
      }),
    );
  const mark = linkDaysBefore(sqlite, linkValue);
  const hours = stored.filter((b) => b.grain === 'hour');
  const buckets = [
    ...hours,
    ...stored.filter((b) => b.grain === 'day' && b.start < mark),
    ...daysFromHours(
      WORKSPACE,
      hours.filter((h) => h.start >= mark),
    ),
  ];
  for (const b of buckets) b.counts.set(linkValue, b.clicks);
  new RollupStore(sqlite).apply(buckets, -1);
  sqlite.query('DELETE FROM rollups WHERE scope = ?').run(linkValue);
  sqlite.query('DELETE FROM rollup_marks WHERE scope = ?').run(linkValue);
}

/**
 * Every bucket and day mark goes (the click storage upgrade, which replaces them with sums of
 * the converted clicks). Runs in the caller's transaction.
 */
export function clearRollups(sqlite: Database): void {
  sqlite.exec('DELETE FROM rollups');
  sqlite.exec('DELETE FROM rollup_marks');
}
