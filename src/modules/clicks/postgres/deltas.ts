/**
 * A click batch's additions on PostgreSQL, kept as one row of `click_deltas` written in the
 * batch's own transaction, and counted into the counters and rollups later by the fold
 * (postgres/fold.ts), which deletes the rows it counted in its transaction. So a click's raw
 * row and what it adds commit together (a crash loses neither one without the other), while
 * the batch itself costs one more row instead of a read-modify-write of every bucket it
 * touches; the fold then merges many batches at once (docs/architecture.md, "Storage").
 *
 * The row holds, per click, exactly what PendingSums.add counts: its link (id and dictionary
 * value), time, bot and first-visit flags, variant, and breakdown value ids. Layout:
 *   u32 header length, the header as JSON ({count, links, values, variants}), zero padding to 8, then
 *   f64 time[n], i32 link[n] (index into links), i32 variant[n] (index, -1 none),
 *   i32 idEnd[n] (cumulative), i32 ids[idEnd[n-1]], u8 flags[n] (1 bot, 2 first visit).
 */
import type { PendingSums } from '../../rollups/public';
import type { EnrichedClick } from '../enrich/enrich';

const FLAG_BOT = 1;
const FLAG_FIRST = 2;

interface Header {
  count: number;
  links: string[];
  values: number[];
  variants: string[];
}

/** The delta of the clicks `rows` of a batch: `first` the first visits, `ids` and `linkValues` per click. */
export function encodeDelta(
  clicks: readonly EnrichedClick[],
  rows: readonly number[],
  first: ReadonlySet<number>,
  ids: readonly (readonly number[])[],
  linkValues: readonly number[],
): Uint8Array {
  const header: Header = { count: rows.length, links: [], values: [], variants: [] };
  const linkIndex = new Map<string, number>();
  const variantIndex = new Map<string, number>();
  const n = rows.length;
  let idCount = 0;
  for (const i of rows) idCount += ids[i]!.length;
  const time = new Float64Array(n);
  const link = new Int32Array(n);
  const variant = new Int32Array(n);
  const idEnd = new Int32Array(n);
  const allIds = new Int32Array(idCount);
  const flags = new Uint8Array(n);
  let at = 0;
  rows.forEach((i, k) => {
    const c = clicks[i]!;
    let l = linkIndex.get(c.linkId);
    if (l === undefined) {
      l = header.links.push(c.linkId) - 1;
      header.values.push(linkValues[i]!);
      linkIndex.set(c.linkId, l);
    }
    let v = -1;
    if (c.variantId !== null) {
      v = variantIndex.get(c.variantId) ?? -1;
      if (v < 0) {
        v = header.variants.push(c.variantId) - 1;
        variantIndex.set(c.variantId, v);
      }
    }
    time[k] = c.time;
    link[k] = l;
    variant[k] = v;
    for (const id of ids[i]!) allIds[at++] = id;
    idEnd[k] = at;
    flags[k] = (c.bot ? FLAG_BOT : 0) | (first.has(i) ? FLAG_FIRST : 0);
  });
  const json = new TextEncoder().encode(JSON.stringify(header));
  const bodyAt = align8(4 + json.length);
  const size = bodyAt + n * 8 + n * 12 + idCount * 4 + n;
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, json.length, true);
  out.set(json, 4);
  let p = bodyAt;
  for (const part of [time, link, variant, idEnd, allIds, flags]) {
    out.set(new Uint8Array(part.buffer, part.byteOffset, part.byteLength), p);
    p += part.byteLength;
  }
  return out;
}

/** Adds every click of a delta to `pending`; returns how many. */
export function addDelta(data: Uint8Array, pending: PendingSums): number {
  // Copied to an aligned buffer of its own: typed array views need their element alignment.
  const bytes = new Uint8Array(data);
  const view = new DataView(bytes.buffer);
  const headerLength = view.getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + headerLength))) as Header;
  const bodyAt = align8(4 + headerLength);
  const n = header.count;
  const time = new Float64Array(bytes.buffer, bodyAt, n);
  const link = new Int32Array(bytes.buffer, bodyAt + n * 8, n);
  const variant = new Int32Array(bytes.buffer, bodyAt + n * 12, n);
  const idEnd = new Int32Array(bytes.buffer, bodyAt + n * 16, n);
  const idCount = n === 0 ? 0 : idEnd[n - 1]!;
  const ids = new Int32Array(bytes.buffer, bodyAt + n * 20, idCount);
  const flags = new Uint8Array(bytes.buffer, bodyAt + n * 20 + idCount * 4, n);
  const click = { linkId: '', time: 0, bot: false, variantId: null as string | null };
  let from = 0;
  for (let k = 0; k < n; k++) {
    const l = link[k]!;
    click.linkId = header.links[l]!;
    click.time = time[k]!;
    click.bot = (flags[k]! & FLAG_BOT) !== 0;
    click.variantId = variant[k]! < 0 ? null : header.variants[variant[k]!]!;
    const to = idEnd[k]!;
    pending.add(click, (flags[k]! & FLAG_FIRST) !== 0, ids.subarray(from, to), header.values[l]!);
    from = to;
  }
  return n;
}

function align8(n: number): number {
  return (n + 7) & ~7;
}
