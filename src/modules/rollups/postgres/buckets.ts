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
import { markStep } from '../../../lib/step-cpu';
import type { PendingSums } from '../pending';
import { DenseCounts } from '../rollup-codec';
import { FoldAdditions } from './additions';
import { PgLinkDays } from './link-days';

const CACHED_BUCKETS = 8;

export class PgRollupWriter {
  /** Workspace buckets as this writer last wrote them, by `grain|start|bot`. */
  private readonly cache = new Map<string, { clicks: number; uniques: number; counts: DenseCounts }>();

  /** `rollup_writes` after this writer's last fold: the cache holds what was written up to there. */
  private lastWrite = -1;

  /** What each fold adds to each bucket, its arrays reused from fold to fold (additions.ts). */
  private readonly additions = new FoldAdditions();

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
    markStep('fold: rollup writes counted');
    const slots = pending.linksInOrder().filter((slot) => kept.has(pending.linkId(slot)));
    const marks = await this.linkDays.advance(
      tx,
      slots.map((slot) => pending.linkValue(slot)),
      today,
    );
    markStep('fold: day marks');
    const additions = this.additions;
    additions.build(pending, slots, marks);
    markStep('fold: additions built');
    if (additions.count === 0) return;
    const order = additions.ordered();
    markStep('fold: additions sorted');
    const keys = {
      scope: tx.array(
        Array.from(order, (a) => additions.scope[a]!),
        'int4',
      ),
      grain: tx.array(
        Array.from(order, (a) => additions.grain[a]!),
        'int2',
      ),
      start: tx.array(
        Array.from(order, (a) => additions.start[a]!),
        'int8',
      ),
      bot: tx.array(
        Array.from(order, (a) => additions.bot[a] === 1),
        'bool',
      ),
    };
    // The fold lock (clicks/postgres/fold.ts) keeps every other writer of buckets out: a plain
    // read, the merge here, and one upsert of every bucket (new ones and changed ones alike).
    const reading = tx`SELECT r.scope, r.grain, r.start, r.bot, r.clicks, r.uniques,
        CASE WHEN r.scope = 0 THEN NULL ELSE r.data END AS data
      FROM rollups r
      JOIN unnest(${keys.scope}::int4[], ${keys.grain}::int2[], ${keys.start}::int8[], ${keys.bot}::bool[])
        AS u(scope, grain, start, bot)
        ON r.scope = u.scope AND r.grain = u.grain AND r.start = u.start AND r.bot = u.bot`;
    markStep('fold: bucket keys built');
    const found = await reading;
    markStep('fold: buckets read, awaited');
    const out = { clicks: [] as number[], uniques: [] as number[], data: [] as Uint8Array[] };
    const stored = new Map<string, { clicks: number; uniques: number; data: Uint8Array | null }>();
    for (const r of found)
      stored.set(`${r.scope}|${r.grain}|${num(r.start)}|${r.bot ? 1 : 0}`, {
        clicks: num(r.clicks),
        uniques: num(r.uniques),
        data: r.data as Uint8Array | null,
      });
    markStep('fold: buckets read, mapped');
    for (const a of order) {
      const grain = additions.grain[a]!;
      const start = additions.start[a]!;
      const bot = additions.bot[a]!;
      const key = `${additions.scope[a]}|${grain}|${start}|${bot}`;
      const s = stored.get(key) ?? { clicks: 0, uniques: 0, data: null };
      if (additions.isWorkspace(a)) {
        const sums = await this.workspaceSums(tx, grain, start, bot === 1, s);
        sums.clicks += additions.clicks[a]!;
        sums.uniques += additions.uniques[a]!;
        additions.addWorkspaceTo(a, sums.counts);
        out.clicks.push(sums.clicks);
        out.uniques.push(sums.uniques);
        out.data.push(sums.counts.encode());
        continue;
      }
      const merged = additions.mergeLink(a, s.data !== null && s.data.length > 0 ? s.data : null);
      out.clicks.push(s.clicks + merged.clicks);
      out.uniques.push(s.uniques + merged.uniques);
      out.data.push(merged.data ?? new Uint8Array(0));
    }
    markStep('fold: merged');
    const upsert = tx`INSERT INTO rollups (scope, grain, start, bot, clicks, uniques, data)
      SELECT * FROM unnest(${keys.scope}::int4[], ${keys.grain}::int2[], ${keys.start}::int8[], ${keys.bot}::bool[],
        ${tx.array(out.clicks, 'int8')}::int8[], ${tx.array(out.uniques, 'int8')}::int8[], ${tx.array(out.data, 'bytea')}::bytea[])
      ON CONFLICT (scope, grain, start, bot) DO UPDATE
        SET clicks = excluded.clicks, uniques = excluded.uniques, data = excluded.data`;
    markStep('fold: upsert built');
    await upsert;
    markStep('fold: upsert, awaited');
  }

  /** A workspace bucket decoded: the cached one when the row still has what this writer wrote. */
  private async workspaceSums(
    tx: Pg,
    grain: number,
    start: number,
    bot: boolean,
    s: { clicks: number; uniques: number },
  ): Promise<{ clicks: number; uniques: number; counts: DenseCounts }> {
    const key = `${grain}|${start}|${bot ? 1 : 0}`;
    const cached = this.cache.get(key);
    if (cached !== undefined && cached.clicks === s.clicks && cached.uniques === s.uniques) return cached;
    let blob: Uint8Array | null = null;
    if (s.clicks > 0) {
      const [row] = await tx`SELECT data FROM rollups
        WHERE scope = 0 AND grain = ${grain} AND start = ${start} AND bot = ${bot}`;
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
