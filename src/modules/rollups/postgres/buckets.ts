/**
 * A fold's rollups on PostgreSQL, inside the fold's transaction (clicks/postgres/fold.ts): what
 * it adds to each link's hour buckets and to the workspace's hour and day buckets (derived from
 * the links', which also count clicks per link) is merged into the stored packed rows
 * (rollup-codec.ts) and written back by one upsert. A link's days are rolled up from its hours
 * once they are over (link-days.ts): only a late click of a day before the link's mark goes to
 * its day bucket too. The fold lock keeps every other fold out, and a link's deletion
 * waits for the fold (the click barrier), so the rows are read and rewritten without row locks.
 * Measured: one row per (bucket, value) with additive upserts cost 53 us and 831 bytes per click;
 * packed rows merged here ~12 us.
 *
 * The workspace's buckets hold every link's count (100,000 values and more): the writer keeps
 * the ones it wrote decoded, and reads a row's bytes again only when its clicks or uniques are
 * not what it wrote, or when anything else wrote rollups since its last fold (another node's
 * fold, a link's deletion): every writer of rollups counts itself in `rollup_writes`, and the
 * cache is kept only when the count moved by this fold alone. Equal totals alone would not do: a
 * deletion then another node's fold can bring a bucket back to the same clicks and uniques with
 * other values in it.
 */
import type { Pg } from '../../../db/postgres/client';
import { num } from '../../../db/postgres/client';
import { DAY_MS, utcDay } from '../../../lib/time';
import type { PendingSums } from '../pending';
import { DenseCounts, mergeEncoded } from '../rollup-codec';
import { GRAIN_CODE, WORKSPACE } from '../rollups';
import { PgLinkDays } from './link-days';

interface HourSums {
  clicks: number;
  uniques: number;
  ids: Int32Array;
  counts: Int32Array;
}

/** One bucket a batch adds to: its key and what it adds, as sorted (id, count) runs. */
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

const CACHED_BUCKETS = 8;

function compareKeys(a: Addition, b: Addition): number {
  return a.scope - b.scope || a.grain - b.grain || a.start - b.start || Number(a.bot) - Number(b.bot);
}

export class PgRollupWriter {
  /** Workspace buckets as this writer last wrote them, by `grain|start|bot`. */
  private readonly cache = new Map<string, { clicks: number; uniques: number; counts: DenseCounts }>();

  /** `rollup_writes` after this writer's last fold: the cache holds what was written up to there. */
  private lastWrite = -1;

  /** The links' day marks, brought up to the fold's day (link-days.ts). */
  private readonly linkDays = new PgLinkDays();

  /** The transaction that used the cache rolled back: what it holds may never have been written. */
  dropCache(): void {
    this.cache.clear();
    this.linkDays.dropCache();
    this.lastWrite = -1;
  }

  /**
   * Adds the batch's sums of the links in `kept` (link ids still existing) to their buckets and
   * the workspace's; `today`: the UTC day start the links' days are rolled up to.
   */
  async add(tx: Pg, pending: PendingSums, kept: ReadonlySet<string>, today: number): Promise<void> {
    const write = await countRollupWrite(tx);
    if (write !== this.lastWrite + 1) {
      this.cache.clear();
      this.linkDays.dropCache();
    }
    this.lastWrite = write;
    const slots = pending.linksInOrder().filter((slot) => kept.has(pending.linkId(slot)));
    const marks = await this.linkDays.advance(
      tx,
      slots.map((slot) => pending.linkValue(slot)),
      today,
    );
    const links = new Map<string, Addition>();
    const workspace = new Map<string, WorkspaceAddition>();
    for (const slot of slots) {
      const scope = pending.linkValue(slot);
      const mark = marks.get(scope)!;
      pending.forEachHour(slot, (h) => {
        // The hour's arrays are scratch space: copied before the next hour overwrites them.
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
          // A link's day from its mark on is the sum of its hours: only the workspace's is written.
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
    if (links.size === 0) return;
    const additions = [...links.values()].sort(compareKeys);
    const wadds = [...workspace.values()].map(
      (w): Addition => ({ scope: WORKSPACE, grain: w.grain, start: w.start, bot: w.bot, parts: [] }),
    );
    const all = [...wadds, ...additions].sort(compareKeys);
    const keys = {
      scope: tx.array(
        all.map((a) => a.scope),
        'int4',
      ),
      grain: tx.array(
        all.map((a) => a.grain),
        'int2',
      ),
      start: tx.array(
        all.map((a) => a.start),
        'int8',
      ),
      bot: tx.array(
        all.map((a) => a.bot),
        'bool',
      ),
    };
    // The fold lock (clicks/postgres/fold.ts) keeps every other writer of buckets out: a plain
    // read, the merge here, and one upsert of every bucket (new ones and changed ones alike).
    const found = await tx`SELECT r.scope, r.grain, r.start, r.bot, r.clicks, r.uniques,
        CASE WHEN r.scope = 0 THEN NULL ELSE r.data END AS data
      FROM rollups r
      JOIN unnest(${keys.scope}::int4[], ${keys.grain}::int2[], ${keys.start}::int8[], ${keys.bot}::bool[])
        AS u(scope, grain, start, bot)
        ON r.scope = u.scope AND r.grain = u.grain AND r.start = u.start AND r.bot = u.bot`;
    const out = { clicks: [] as number[], uniques: [] as number[], data: [] as Uint8Array[] };
    const stored = new Map<string, { clicks: number; uniques: number; data: Uint8Array | null }>();
    for (const r of found)
      stored.set(`${r.scope}|${r.grain}|${num(r.start)}|${r.bot ? 1 : 0}`, {
        clicks: num(r.clicks),
        uniques: num(r.uniques),
        data: r.data as Uint8Array | null,
      });
    for (const a of all) {
      const key = `${a.scope}|${a.grain}|${a.start}|${a.bot ? 1 : 0}`;
      const s = stored.get(key) ?? { clicks: 0, uniques: 0, data: null };
      if (a.scope === WORKSPACE) {
        const w = workspace.get(`${a.grain}|${a.start}|${a.bot ? 1 : 0}`)!;
        const sums = await this.workspaceSums(tx, a, s);
        sums.clicks += w.clicks;
        sums.uniques += w.uniques;
        sums.counts.merge(w.counts);
        out.clicks.push(sums.clicks);
        out.uniques.push(sums.uniques);
        out.data.push(sums.counts.encode());
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
      out.clicks.push(clicks);
      out.uniques.push(uniques);
      out.data.push(data ?? new Uint8Array(0));
    }
    await tx`INSERT INTO rollups (scope, grain, start, bot, clicks, uniques, data)
      SELECT * FROM unnest(${keys.scope}::int4[], ${keys.grain}::int2[], ${keys.start}::int8[], ${keys.bot}::bool[],
        ${tx.array(out.clicks, 'int8')}::int8[], ${tx.array(out.uniques, 'int8')}::int8[], ${tx.array(out.data, 'bytea')}::bytea[])
      ON CONFLICT (scope, grain, start, bot) DO UPDATE
        SET clicks = excluded.clicks, uniques = excluded.uniques, data = excluded.data`;
  }

  /** A workspace bucket decoded: the cached one when the row still has what this writer wrote. */
  private async workspaceSums(
    tx: Pg,
    a: Addition,
    s: { clicks: number; uniques: number },
  ): Promise<{ clicks: number; uniques: number; counts: DenseCounts }> {
    const key = `${a.grain}|${a.start}|${a.bot ? 1 : 0}`;
    const cached = this.cache.get(key);
    if (cached !== undefined && cached.clicks === s.clicks && cached.uniques === s.uniques) return cached;
    let blob: Uint8Array | null = null;
    if (s.clicks > 0) {
      const [row] = await tx`SELECT data FROM rollups
        WHERE scope = 0 AND grain = ${a.grain} AND start = ${a.start} AND bot = ${a.bot}`;
      blob = (row?.data as Uint8Array | undefined) ?? null;
    }
    const fresh = { clicks: s.clicks, uniques: s.uniques, counts: DenseCounts.fromBlob(blob) };
    this.cache.set(key, fresh);
    // Buckets of hours and days gone by are written no more: keep the newest few.
    if (this.cache.size > CACHED_BUCKETS) this.cache.delete(this.cache.keys().next().value!);
    return fresh;
  }
}

/**
 * Counts one write of rollup buckets (a fold, a link's deletion) in `rollup_writes`, inside its
 * transaction (see the file's comment); returns the new count. Every writer holds the fold lock
 * or the click barrier exclusively, so the count is taken by one writer at a time.
 */
export async function countRollupWrite(tx: Pg): Promise<number> {
  const [row] = await tx`UPDATE rollup_writes SET count = count + 1 RETURNING count`;
  return num(row!.count);
}
