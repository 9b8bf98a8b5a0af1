/**
 * The packed form of one rollup bucket's breakdown: (value id, clicks) pairs as little-endian
 * uint32. A bucket of a busy workspace day holds thousands of values; reading 90 of them as
 * blobs and summing typed arrays costs a few ms, where the same sums over one SQL row per value
 * cost over 100 ms (measured: 350k rows, 160 ms as text rows, 40-60 ms as integer rows).
 */

export type Counts = Map<number, number>;

/** A uint32 view of a blob (copied when SQLite's buffer is not 4-byte aligned). */
export function countsView(blob: Uint8Array): Uint32Array {
  if (blob.byteOffset % 4 === 0) return new Uint32Array(blob.buffer, blob.byteOffset, blob.byteLength >>> 2);
  return new Uint32Array(blob.slice().buffer, 0, blob.byteLength >>> 2);
}

export function decodeCounts(blob: Uint8Array | null): Counts {
  const counts: Counts = new Map();
  if (!blob) return counts;
  const view = countsView(blob);
  for (let i = 0; i + 1 < view.length; i += 2) counts.set(view[i]!, view[i + 1]!);
  return counts;
}

/** Zero and negative counts are dropped: a value nobody clicked takes no space. */
export function encodeCounts(counts: Counts): Uint8Array {
  const view = new Uint32Array(counts.size * 2);
  let i = 0;
  for (const [id, n] of counts) {
    if (n <= 0) continue;
    view[i++] = id;
    view[i++] = n;
  }
  return new Uint8Array(view.buffer, 0, i * 4);
}

/** Adds (sign 1) or removes (sign -1) one bucket's counts into another, in place. */
export function mergeCounts(target: Counts, source: Counts, sign: 1 | -1 = 1): Counts {
  for (const [id, n] of source) target.set(id, (target.get(id) ?? 0) + sign * n);
  return target;
}
