/**
 * The packed form of one rollup bucket's breakdown: (value id, clicks) pairs in id order, each
 * id as the varint of its distance from the previous one and each count as a varint. A link's
 * hour bucket of one click holds ten or so values of small, close ids: ~20 bytes here against 80
 * as uint32 pairs, and most buckets are such. Summing stays a single pass over the bytes: a busy
 * workspace day of 100,000 values decodes in well under a millisecond.
 *
 * Varints are LEB128, written with arithmetic rather than bit operators so counts above 2^31
 * (a workspace's day after years) stay exact up to 2^53.
 */
import { grown } from '../../lib/typed-arrays';

export type Counts = Map<number, number>;

/** Where readVarint left off (module scratch: no tuple per varint). */
let readAt = 0;

/** The varint at `at`; readAt is then the byte after it. */
function readVarint(blob: Uint8Array, at: number): number {
  let value = 0;
  let scale = 1;
  let b: number;
  do {
    b = blob[at++]!;
    value += (b & 0x7f) * scale;
    scale *= 128;
  } while (b >= 0x80 && at < blob.length);
  readAt = at;
  return value;
}

/** Calls `fn(id, clicks)` for each pair of a packed breakdown, in id order. */
export function forEachCount(blob: Uint8Array, fn: (id: number, clicks: number) => void): void {
  let id = 0;
  let i = 0;
  while (i < blob.length) {
    id += readVarint(blob, i);
    const clicks = readVarint(blob, readAt);
    i = readAt;
    fn(id, clicks);
  }
}

export function decodeCounts(blob: Uint8Array | null): Counts {
  const counts: Counts = new Map();
  if (blob) forEachCount(blob, (id, clicks) => counts.set(id, clicks));
  return counts;
}

function writeVarint(out: Uint8Array, at: number, value: number): number {
  let v = value;
  while (v >= 0x80) {
    out[at++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  out[at++] = v;
  return at;
}

/** Zero and negative counts are dropped: a value nobody clicked takes no space. */
export function encodeCounts(counts: Counts): Uint8Array {
  const ids: number[] = [];
  for (const [id, n] of counts) if (n > 0) ids.push(id);
  ids.sort((a, b) => a - b);
  // At most 8 bytes per varint up to 2^53, two per pair.
  const out = new Uint8Array(ids.length * 16);
  let at = 0;
  let previous = 0;
  for (const id of ids) {
    at = writeVarint(out, at, id - previous);
    at = writeVarint(out, at, counts.get(id)!);
    previous = id;
  }
  return out.slice(0, at);
}

const EMPTY = new Uint8Array(0);

/**
 * A packed breakdown plus `n` (id, clicks) pairs in ascending id order, packed again in one pass
 * over both: the fold's way of adding a link's hour to its stored bucket, with no map between.
 */
export function mergeEncoded(blob: Uint8Array | null, ids: Int32Array, counts: Int32Array, n: number): Uint8Array {
  const out = new Uint8Array(mergedRoom(blob, n));
  return out.slice(0, mergeEncodedInto(blob, ids, counts, n, out, 0));
}

/** The bytes mergeEncodedInto may write at most. */
export function mergedRoom(blob: Uint8Array | null, n: number): number {
  return (blob?.length ?? 0) + n * 16;
}

/**
 * mergeEncoded written into `out` from `from` (which has mergedRoom bytes free there) rather than
 * into an array of its own; returns where it ends. The PostgreSQL fold writes every bucket it
 * merges one after the other in one buffer, sent as one parameter (postgres/buckets.ts).
 */
export function mergeEncodedInto(
  blob: Uint8Array | null,
  ids: Int32Array,
  counts: Int32Array,
  n: number,
  out: Uint8Array,
  from: number,
): number {
  const src = blob ?? EMPTY;
  let at = from;
  let previous = 0;
  let i = 0;
  let j = 0;
  // The blob's current pair; id -1 once it is used up (value ids start at 1).
  let storedId = -1;
  let storedClicks = 0;
  let running = 0;
  const nextStored = () => {
    if (i >= src.length) {
      storedId = -1;
      return;
    }
    running += readVarint(src, i);
    storedClicks = readVarint(src, readAt);
    i = readAt;
    storedId = running;
  };
  nextStored();
  while (storedId >= 0 || j < n) {
    let id: number;
    let clicks: number;
    if (j >= n || (storedId >= 0 && storedId < ids[j]!)) {
      id = storedId;
      clicks = storedClicks;
      nextStored();
    } else if (storedId < 0 || ids[j]! < storedId) {
      id = ids[j]!;
      clicks = counts[j]!;
      j++;
    } else {
      id = storedId;
      clicks = storedClicks + counts[j]!;
      j++;
      nextStored();
    }
    if (clicks <= 0) continue;
    at = writeVarint(out, at, id - previous);
    at = writeVarint(out, at, clicks);
    previous = id;
  }
  return at;
}

/** Adds (sign 1) or removes (sign -1) one bucket's counts into another, in place. */
export function mergeCounts(target: Counts, source: Counts, sign: 1 | -1 = 1): Counts {
  for (const [id, n] of source) target.set(id, (target.get(id) ?? 0) + sign * n);
  return target;
}

/**
 * Counts indexed by value id in one growing Float64Array: what the writer keeps for the
 * workspace's buckets, which hold a value per link (100,000 and more). Merging is an indexed add
 * and encoding a pass in id order, where a Map of that size cost a sort per write and ~50 bytes
 * per entry of heap.
 *
 * With `sparse` it holds its counts in a Map until they are many for the highest id (a dense
 * array then costs no more than the Map): a bucket of an hour long past that an import adds a
 * few clicks to holds a few values of ids up to the number of links, and a fold of a year of
 * history touches thousands of such buckets. Dense from the start, each took an array of every
 * value id (800 KB at 100,000 links), so the fold's memory grew with the links imported.
 */
/** Values a sparse DenseCounts holds at least before it may turn dense. */
const SPARSE_AT_LEAST = 1024;

export class DenseCounts {
  private sums: Float64Array<ArrayBuffer>;
  private sparse: Map<number, number> | null;
  private highest = 0;

  constructor(options: { sparse?: boolean } = {}) {
    this.sparse = options.sparse ? new Map() : null;
    this.sums = new Float64Array(this.sparse === null ? 1024 : 0);
  }

  static fromBlob(blob: Uint8Array | null, options: { sparse?: boolean } = {}): DenseCounts {
    const dense = new DenseCounts(options);
    if (blob) forEachCount(blob, (id, clicks) => dense.add(id, clicks));
    return dense;
  }

  /** The counts' slots in memory: the Map's entries while sparse, else the array's length. */
  get slots(): number {
    return this.sparse?.size ?? this.sums.length;
  }

  add(id: number, n: number): void {
    const sparse = this.sparse;
    if (sparse !== null) {
      sparse.set(id, (sparse.get(id) ?? 0) + n);
      if (id > this.highest) this.highest = id;
      // A Map entry costs about what eight array slots do.
      if (sparse.size >= SPARSE_AT_LEAST && sparse.size * 8 >= this.highest) this.densify(sparse);
      return;
    }
    if (id >= this.sums.length) this.sums = grown(this.sums, id + 1);
    this.sums[id]! += n;
  }

  private densify(sparse: Map<number, number>): void {
    this.sparse = null;
    this.sums = grown(new Float64Array(1024), this.highest + 1);
    for (const [id, n] of sparse) this.sums[id]! += n;
  }

  /** Adds `n` (id, clicks) pairs. */
  addPairs(ids: Int32Array, counts: Int32Array, n: number): void {
    for (let i = 0; i < n; i++) this.add(ids[i]!, counts[i]!);
  }

  merge(source: Counts, sign: 1 | -1 = 1): void {
    for (const [id, n] of source) this.add(id, sign * n);
  }

  clear(): void {
    if (this.sparse !== null) this.sparse.clear();
    else this.sums.fill(0);
  }

  /** The same bytes encodeCounts gives for the positive counts. */
  encode(): Uint8Array {
    if (this.sparse !== null) return encodeCounts(this.sparse);
    const sums = this.sums;
    let pairs = 0;
    for (let id = 0; id < sums.length; id++) if (sums[id]! > 0) pairs++;
    const out = new Uint8Array(pairs * 16);
    let at = 0;
    let previous = 0;
    for (let id = 0; id < sums.length; id++) {
      const n = sums[id]!;
      if (n <= 0) continue;
      at = writeVarint(out, at, id - previous);
      at = writeVarint(out, at, n);
      previous = id;
    }
    return out.slice(0, at);
  }
}
