/** The ranking every breakdown list shares: most clicks first, ties by a stable order, at most BREAKDOWN_LIMIT. */

/** Each breakdown lists at most this many values, most clicks first. */
export const BREAKDOWN_LIMIT = 100;

function byClicks<T extends { clicks: number }>(tie: (a: T, b: T) => number) {
  return (a: T, b: T) => b.clicks - a.clicks || tie(a, b);
}

/** JavaScript string order (UTF-16 code units) with null (unknown) last: stable, locale-free tie-breaking. */
export function compareText(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

/**
 * The BREAKDOWN_LIMIT entries with the most clicks, in order. A long list (a workspace's links,
 * a busy link's cities) is first cut to the entries with at least the limit-th largest count,
 * found by selection: sorting 100,000 entries with a comparator costs tens of ms, the cut one
 * pass. Every entry tied with the last one kept stays in, so the order decides the same as a
 * full sort would.
 */
export function top<T extends { clicks: number }>(list: T[], tie: (a: T, b: T) => number): T[] {
  if (list.length > 4 * BREAKDOWN_LIMIT) {
    const least = kthLargest(
      Float64Array.from(list, (e) => e.clicks),
      BREAKDOWN_LIMIT,
    );
    list = list.filter((e) => e.clicks >= least);
  }
  return list.sort(byClicks(tie)).slice(0, BREAKDOWN_LIMIT);
}

/** The k-th largest of `a` (1-based), by quickselect (reorders `a`). */
function kthLargest(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! > pivot) i++;
      while (a[j]! < pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return a[target]!;
}
