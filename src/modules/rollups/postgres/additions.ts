/**
 * What a PostgreSQL fold adds to each bucket (buckets.ts), built in typed arrays that are reused
 * from fold to fold: no object, string key or Map per hour or per value. Each bucket a fold
 * touches is one addition slot (its key and, for the workspace's, its clicks and uniques), and
 * each hour of a link (PendingSums) is one part: its breakdown copied into a pool of (value id,
 * clicks) pairs. An addition is a chain of the parts it sums: a link's hour bucket has one, a
 * link's day bucket (late clicks of a day before its mark) its hours of that day, and a
 * workspace bucket every link hour in it, each part then counting its link's value too. The
 * workspace's parts are added to its decoded bucket (DenseCounts) pair by pair at the merge,
 * where the old way summed them into a Map per bucket first.
 */

import { DAY_MS, utcDay } from '../../../lib/time';
import { grown } from '../../../lib/typed-arrays';
import type { PendingSums } from '../pending';
import { type DenseCounts, mergedRoom, mergeEncoded, mergeEncodedInto } from '../rollup-codec';
import { GRAIN_CODE, WORKSPACE } from '../rollups';

const NONE = -1;
const EMPTY = new Uint8Array(0);

/** Bytes written one after the other in one growing array, reused: the fold's merged buckets. */
export class ByteRun {
  bytes = new Uint8Array(1 << 16);
  length = 0;

  /** Makes room for `n` more bytes. */
  reserve(n: number): void {
    this.bytes = grown(this.bytes, this.length + n);
  }

  append(part: Uint8Array): void {
    this.reserve(part.length);
    this.bytes.set(part, this.length);
    this.length += part.length;
  }

  /** The bytes written. */
  written(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

export class FoldAdditions {
  /** Addition slots: one per bucket. */
  count = 0;
  scope = new Int32Array(256);
  grain = new Int32Array(256);
  start = new Float64Array(256);
  bot = new Uint8Array(256);
  /** The workspace's additions' clicks and uniques (a link's are its parts'). */
  clicks = new Float64Array(256);
  uniques = new Float64Array(256);
  private firstLink = new Int32Array(256);

  // Parts: one per link hour, its pairs at [partAt, partAt + partSize) of the pool.
  private partCount = 0;
  private partScope = new Int32Array(256);
  private partClicks = new Int32Array(256);
  private partUniques = new Int32Array(256);
  private partAt = new Int32Array(256);
  private partSize = new Int32Array(256);
  private pairCount = 0;
  private pairIds = new Int32Array(4096);
  private pairCounts = new Int32Array(4096);

  // Links of the chains: a part in an addition's chain (a part is in two to four chains).
  private linkCount = 0;
  private linkPart = new Int32Array(1024);
  private linkNext = new Int32Array(1024);

  /** The workspace's addition slot per bucket key (workspaceKey). */
  private readonly workspace = new Map<number, number>();

  /**
   * Builds the additions of the link `slots` of `pending`; `marks` holds each link's day mark
   * (link-days.ts): its clicks of days before it go to its day buckets as well.
   */
  build(pending: PendingSums, slots: readonly number[], marks: ReadonlyMap<number, number>): void {
    this.count = 0;
    this.partCount = 0;
    this.pairCount = 0;
    this.linkCount = 0;
    this.workspace.clear();
    for (const slot of slots) {
      const scope = pending.linkValue(slot);
      const mark = marks.get(scope)!;
      // This link's additions are the slots from here on: its day buckets are found among them.
      const from = this.count;
      pending.forEachHour(slot, (h) => {
        const part = this.part(scope, h.clicks, h.uniques, h.ids, h.counts, h.size);
        const bot = h.bot ? 1 : 0;
        const day = utcDay(h.start) * DAY_MS;
        this.chain(this.slot(scope, GRAIN_CODE.hour, h.start, bot), part);
        if (day < mark) this.chain(this.linkDay(from, scope, day, bot), part);
        this.addWorkspace(GRAIN_CODE.hour, h.start, bot, part, h.clicks, h.uniques);
        this.addWorkspace(GRAIN_CODE.day, day, bot, part, h.clicks, h.uniques);
      });
    }
  }

  /** The addition slots in key order (scope, grain, start, bot): the order the rows are written in. */
  ordered(): Int32Array {
    const { scope, grain, start, bot } = this;
    return Int32Array.from({ length: this.count }, (_, i) => i).sort(
      (a, b) => scope[a]! - scope[b]! || grain[a]! - grain[b]! || start[a]! - start[b]! || bot[a]! - bot[b]!,
    );
  }

  isWorkspace(a: number): boolean {
    return this.scope[a] === WORKSPACE;
  }

  /** The clicks and uniques of the last mergeLinkInto. */
  mergedClicks = 0;
  mergedUniques = 0;

  /**
   * A link's addition `a` merged into its stored packed breakdown, written at the end of `out`;
   * its clicks and uniques in mergedClicks and mergedUniques. A chain of one part (a link's hour)
   * is merged straight into `out`; a longer one (a late day) through arrays of its own first.
   */
  mergeLinkInto(a: number, stored: Uint8Array | null, out: ByteRun): void {
    let data = stored;
    let clicks = 0;
    let uniques = 0;
    let l = this.firstLink[a]!;
    if (l === NONE) out.append(stored ?? EMPTY);
    for (; l !== NONE; l = this.linkNext[l]!) {
      const p = this.linkPart[l]!;
      const at = this.partAt[p]!;
      const size = this.partSize[p]!;
      const ids = this.pairIds.subarray(at, at + size);
      const counts = this.pairCounts.subarray(at, at + size);
      if (this.linkNext[l] === NONE) {
        out.reserve(mergedRoom(data, size));
        out.length = mergeEncodedInto(data, ids, counts, size, out.bytes, out.length);
      } else data = mergeEncoded(data, ids, counts, size);
      clicks += this.partClicks[p]!;
      uniques += this.partUniques[p]!;
    }
    this.mergedClicks = clicks;
    this.mergedUniques = uniques;
  }

  /** Adds a workspace addition's values (every link hour's breakdown and the link's own count) to `counts`. */
  addWorkspaceTo(a: number, counts: DenseCounts): void {
    const ids = this.pairIds;
    const pairs = this.pairCounts;
    for (let l = this.firstLink[a]!; l !== NONE; l = this.linkNext[l]!) {
      const p = this.linkPart[l]!;
      const end = this.partAt[p]! + this.partSize[p]!;
      for (let k = this.partAt[p]!; k < end; k++) counts.add(ids[k]!, pairs[k]!);
      counts.add(this.partScope[p]!, this.partClicks[p]!);
    }
  }

  private part(
    scope: number,
    clicks: number,
    uniques: number,
    ids: Int32Array,
    counts: Int32Array,
    size: number,
  ): number {
    const p = this.partCount++;
    if (p >= this.partScope.length) {
      const need = p + 1;
      this.partScope = grown(this.partScope, need);
      this.partClicks = grown(this.partClicks, need);
      this.partUniques = grown(this.partUniques, need);
      this.partAt = grown(this.partAt, need);
      this.partSize = grown(this.partSize, need);
    }
    const at = this.pairCount;
    this.pairCount += size;
    this.pairIds = grown(this.pairIds, this.pairCount);
    this.pairCounts = grown(this.pairCounts, this.pairCount);
    // The hour's arrays are scratch space: copied before the next hour overwrites them.
    this.pairIds.set(ids.subarray(0, size), at);
    this.pairCounts.set(counts.subarray(0, size), at);
    this.partScope[p] = scope;
    this.partClicks[p] = clicks;
    this.partUniques[p] = uniques;
    this.partAt[p] = at;
    this.partSize[p] = size;
    return p;
  }

  /** A new addition slot. */
  private slot(scope: number, grain: number, start: number, bot: number): number {
    const a = this.count++;
    if (a >= this.scope.length) {
      const need = a + 1;
      this.scope = grown(this.scope, need);
      this.grain = grown(this.grain, need);
      this.start = grown(this.start, need);
      this.bot = grown(this.bot, need);
      this.clicks = grown(this.clicks, need);
      this.uniques = grown(this.uniques, need);
      this.firstLink = grown(this.firstLink, need);
    }
    this.scope[a] = scope;
    this.grain[a] = grain;
    this.start[a] = start;
    this.bot[a] = bot;
    this.clicks[a] = 0;
    this.uniques[a] = 0;
    this.firstLink[a] = NONE;
    return a;
  }

  /** A link's day addition, among its slots from `from` on (a link has a few), made when new. */
  private linkDay(from: number, scope: number, day: number, bot: number): number {
    for (let a = from; a < this.count; a++)
      if (this.grain[a] === GRAIN_CODE.day && this.start[a] === day && this.bot[a] === bot) return a;
    return this.slot(scope, GRAIN_CODE.day, day, bot);
  }

  private addWorkspace(grain: number, start: number, bot: number, part: number, clicks: number, uniques: number): void {
    // Hour and day starts are whole milliseconds: the key is exact below 2^53.
    const key = start * 4 + grain * 2 + bot;
    let a = this.workspace.get(key);
    if (a === undefined) {
      a = this.slot(WORKSPACE, grain, start, bot);
      this.workspace.set(key, a);
    }
    this.clicks[a]! += clicks;
    this.uniques[a]! += uniques;
    this.chain(a, part);
  }

  /** Puts `part` at the head of addition `a`'s chain. */
  private chain(a: number, part: number): void {
    const l = this.linkCount++;
    if (l >= this.linkPart.length) {
      this.linkPart = grown(this.linkPart, l + 1);
      this.linkNext = grown(this.linkNext, l + 1);
    }
    this.linkPart[l] = part;
    this.linkNext[l] = this.firstLink[a]!;
    this.firstLink[a] = l;
  }
}
