/**
 * The PostgreSQL fold's buckets computed without a database, the way the fold builds its
 * additions now (FoldAdditions, typed arrays) and the way it built them before (Maps keyed by
 * strings, a Map of counts per workspace bucket: kept here as the oracle), each merged into the
 * same stored rows: what the fold would write, key by key, in its write order.
 */
import { DAY_MS, utcDay } from '../../../src/lib/time';
import type { PendingSums } from '../../../src/modules/rollups/pending';
import { ByteRun, type FoldAdditions } from '../../../src/modules/rollups/postgres/additions';
import { DenseCounts, mergeEncoded } from '../../../src/modules/rollups/rollup-codec';
import { GRAIN_CODE, WORKSPACE } from '../../../src/modules/rollups/rollups';

/** A stored row, by `scope|grain|start|bot` (workspace rows' data decoded by the fold as DenseCounts). */
export interface StoredRow {
  clicks: number;
  uniques: number;
  data: Uint8Array | null;
}

export interface WrittenRow {
  key: string;
  clicks: number;
  uniques: number;
  data: Uint8Array;
}

const EMPTY: StoredRow = { clicks: 0, uniques: 0, data: null };

function workspaceRow(s: StoredRow): { clicks: number; uniques: number; counts: DenseCounts } {
  return { clicks: s.clicks, uniques: s.uniques, counts: DenseCounts.fromBlob(s.data) };
}

/** The rows the fold writes, built with FoldAdditions. */
export function typedBuckets(
  additions: FoldAdditions,
  pending: PendingSums,
  slots: readonly number[],
  marks: ReadonlyMap<number, number>,
  stored: ReadonlyMap<string, StoredRow>,
): WrittenRow[] {
  additions.build(pending, slots, marks);
  const out: WrittenRow[] = [];
  const bytes = new ByteRun();
  bytes.append(new Uint8Array([7, 7, 7]));
  for (const a of additions.ordered()) {
    const key = `${additions.scope[a]}|${additions.grain[a]}|${additions.start[a]}|${additions.bot[a]}`;
    const s = stored.get(key) ?? EMPTY;
    if (additions.isWorkspace(a)) {
      const sums = workspaceRow(s);
      additions.addWorkspaceTo(a, sums.counts);
      out.push({
        key,
        clicks: sums.clicks + additions.clicks[a]!,
        uniques: sums.uniques + additions.uniques[a]!,
        data: sums.counts.encode(),
      });
      continue;
    }
    // Written after what is there already, as the fold writes every bucket into one buffer.
    const from = bytes.length;
    additions.mergeLinkInto(a, s.data !== null && s.data.length > 0 ? s.data : null, bytes);
    out.push({
      key,
      clicks: s.clicks + additions.mergedClicks,
      uniques: s.uniques + additions.mergedUniques,
      data: bytes.written().slice(from),
    });
  }
  return out;
}

interface HourSums {
  clicks: number;
  uniques: number;
  ids: Int32Array;
  counts: Int32Array;
}

interface Addition {
  scope: number;
  grain: number;
  start: number;
  bot: boolean;
  parts: HourSums[];
}

interface WorkspaceAddition {
  grain: number;
  start: number;
  bot: boolean;
  clicks: number;
  uniques: number;
  counts: Map<number, number>;
}

function compareKeys(a: Addition, b: Addition): number {
  return a.scope - b.scope || a.grain - b.grain || a.start - b.start || Number(a.bot) - Number(b.bot);
}

/** The rows the fold writes, built as before FoldAdditions (rollups/postgres/buckets.ts at the time). */
export function mapBuckets(
  pending: PendingSums,
  slots: readonly number[],
  marks: ReadonlyMap<number, number>,
  stored: ReadonlyMap<string, StoredRow>,
): WrittenRow[] {
  const links = new Map<string, Addition>();
  const workspace = new Map<string, WorkspaceAddition>();
  for (const slot of slots) {
    const scope = pending.linkValue(slot);
    const mark = marks.get(scope)!;
    pending.forEachHour(slot, (h) => {
      const sums: HourSums = {
        clicks: h.clicks,
        uniques: h.uniques,
        ids: h.ids.slice(0, h.size),
        counts: h.counts.slice(0, h.size),
      };
      const day = utcDay(h.start) * DAY_MS;
      for (const [grain, start] of [
        [GRAIN_CODE.hour, h.start],
        [GRAIN_CODE.day, day],
      ] as const) {
        if (grain === GRAIN_CODE.hour || day < mark) {
          const key = `${scope}|${grain}|${start}|${h.bot ? 1 : 0}`;
          let a = links.get(key);
          if (a === undefined) {
            a = { scope, grain, start, bot: h.bot, parts: [] };
            links.set(key, a);
          }
          a.parts.push(sums);
        }
        const wkey = `${grain}|${start}|${h.bot ? 1 : 0}`;
        let w = workspace.get(wkey);
        if (w === undefined) {
          w = { grain, start, bot: h.bot, clicks: 0, uniques: 0, counts: new Map() };
          workspace.set(wkey, w);
        }
        w.clicks += h.clicks;
        w.uniques += h.uniques;
        for (let i = 0; i < h.size; i++) w.counts.set(h.ids[i]!, (w.counts.get(h.ids[i]!) ?? 0) + h.counts[i]!);
        w.counts.set(scope, (w.counts.get(scope) ?? 0) + h.clicks);
      }
    });
  }
  if (links.size === 0) return [];
  const additions = [...links.values()].sort(compareKeys);
  const wadds = [...workspace.values()].map(
    (w): Addition => ({ scope: WORKSPACE, grain: w.grain, start: w.start, bot: w.bot, parts: [] }),
  );
  const all = [...wadds, ...additions].sort(compareKeys);
  const out: WrittenRow[] = [];
  for (const a of all) {
    const key = `${a.scope}|${a.grain}|${a.start}|${a.bot ? 1 : 0}`;
    const s = stored.get(key) ?? EMPTY;
    if (a.scope === WORKSPACE) {
      const w = workspace.get(`${a.grain}|${a.start}|${a.bot ? 1 : 0}`)!;
      const sums = workspaceRow(s);
      sums.counts.merge(w.counts);
      out.push({ key, clicks: sums.clicks + w.clicks, uniques: sums.uniques + w.uniques, data: sums.counts.encode() });
      continue;
    }
    let data: Uint8Array | null = s.data !== null && s.data.length > 0 ? s.data : null;
    let clicks = s.clicks;
    let uniques = s.uniques;
    for (const p of a.parts) {
      data = mergeEncoded(data, p.ids, p.counts, p.ids.length);
      clicks += p.clicks;
      uniques += p.uniques;
    }
    out.push({ key, clicks, uniques, data: data ?? new Uint8Array(0) });
  }
  return out;
}
