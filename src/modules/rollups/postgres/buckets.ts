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
import { intList, num } from '../../../db/postgres/client';
import { markStep } from '../../../lib/step-cpu';
import type { PendingSums } from '../pending';
import { DenseCounts } from '../rollup-codec';
import { ByteRun, FoldAdditions } from './additions';
import { PgLinkDays } from './link-days';

const CACHED_BUCKETS = 8;

export class PgRollupWriter {
  /** Workspace buckets as this writer last wrote them, by `grain|start|bot`. */
  private readonly cache = new Map<string, { clicks: number; uniques: number; counts: DenseCounts }>();

  /** `rollup_writes` after this writer's last fold: the cache holds what was written up to there. */
  private lastWrite = -1;

  /** The merged buckets' bytes, one after the other, reused from fold to fold. */
  private readonly bytes = new ByteRun();

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
   * the workspace's; `today`: the UTC day start the links' days are rolled up to. `inOrder`: the
   * link slots of `kept` in link id order, when the caller sorted them already.
   */
  async add(
    tx: Pg,
    pending: PendingSums,
    kept: ReadonlySet<string>,
    today: number,
    inOrder?: readonly number[],
  ): Promise<void> {
    const write = await countRollupWrite(tx);
    if (write !== this.lastWrite + 1) {
      this.cache.clear();
      this.linkDays.dropCache();
    }
    this.lastWrite = write;
    markStep('fold: rollup writes counted');
    const slots = inOrder ?? pending.linksInOrder().filter((slot) => kept.has(pending.linkId(slot)));
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
    const n = order.length;
    // Each key column as one array literal, built once for both statements (sql.array quotes
    // every element, at several times the cost: docs/decisions/2026-11-30-fold-statements-text.md).
    const scope = new Int32Array(n);
    const grain = new Int32Array(n);
    const start = new Float64Array(n);
    const bot: string[] = new Array(n);
    for (let k = 0; k < n; k++) {
      const a = order[k]!;
      scope[k] = additions.scope[a]!;
      grain[k] = additions.grain[a]!;
      start[k] = additions.start[a]!;
      bot[k] = additions.bot[a] === 1 ? 't' : 'f';
    }
    const keys = { scope: intList(scope), grain: intList(grain), start: intList(start), bot: `{${bot.join(',')}}` };
    // The fold lock (clicks/postgres/fold.ts) keeps every other writer of buckets out: a plain
    // read, the merge here, and one upsert of every bucket (new ones and changed ones alike).
    // A stored row comes back with its key's position in `order` (ordinality), so no key is
    // turned into text to find it. Each key probes the primary key, in its order (`OFFSET 0`
    // keeps the subquery from being made a join): as a plain join PostgreSQL read and hashed
    // the whole table for a few thousand keys, a cost that grew with the rollups stored
    // (docs/decisions/2026-11-30-postgres-fold-keys-by-index.md).
    const reading = tx`SELECT u.ord::int4, r.clicks, r.uniques, CASE WHEN r.scope = 0 THEN NULL ELSE r.data END AS data
      FROM unnest(${keys.scope}::int4[], ${keys.grain}::int2[], ${keys.start}::int8[], ${keys.bot}::bool[])
        WITH ORDINALITY AS u(scope, grain, start, bot, ord)
      CROSS JOIN LATERAL (SELECT r.scope, r.clicks, r.uniques, r.data FROM rollups r
        WHERE r.scope = u.scope AND r.grain = u.grain AND r.start = u.start AND r.bot = u.bot OFFSET 0) r`.values();
    markStep('fold: bucket keys built');
    const found = (await reading) as [number, string | number, string | number, Uint8Array | null][];
    markStep('fold: buckets read, awaited');
    const storedClicks = new Float64Array(n);
    const storedUniques = new Float64Array(n);
    const storedData: (Uint8Array | null)[] = new Array(n).fill(null);
    for (const [ord, clicks, uniques, data] of found) {
      storedClicks[ord - 1] = num(clicks);
      storedUniques[ord - 1] = num(uniques);
      storedData[ord - 1] = data;
    }
    markStep('fold: buckets read, mapped');
    const clicks = new Float64Array(n);
    const uniques = new Float64Array(n);
    // Every bucket's bytes one after the other, each's start (1-based, as SQL's substring counts)
    // and length: sent as one bytea parameter, each row its substring (a bytea[] parameter costs
    // the node about seven times as much per element, each turned into quoted text).
    const bytes = this.bytes;
    bytes.length = 0;
    const at = new Int32Array(n);
    const lengths = new Int32Array(n);
    for (let k = 0; k < n; k++) {
      at[k] = bytes.length + 1;
      const a = order[k]!;
      const s = { clicks: storedClicks[k]!, uniques: storedUniques[k]! };
      if (additions.isWorkspace(a)) {
        const sums = await this.workspaceSums(tx, grain[k]!, start[k]!, bot[k] === 't', s);
        sums.clicks += additions.clicks[a]!;
        sums.uniques += additions.uniques[a]!;
        additions.addWorkspaceTo(a, sums.counts);
        clicks[k] = sums.clicks;
        uniques[k] = sums.uniques;
        bytes.append(sums.counts.encode());
        lengths[k] = bytes.length + 1 - at[k]!;
        continue;
      }
      const stored = storedData[k]!;
      additions.mergeLinkInto(a, stored !== null && stored.length > 0 ? stored : null, bytes);
      clicks[k] = s.clicks + additions.mergedClicks;
      uniques[k] = s.uniques + additions.mergedUniques;
      lengths[k] = bytes.length + 1 - at[k]!;
    }
    markStep('fold: merged');
    const upsert = tx`INSERT INTO rollups (scope, grain, start, bot, clicks, uniques, data)
      SELECT u.scope, u.grain, u.start, u.bot, u.clicks, u.uniques, substring(${bytes.written()}::bytea FROM u.at FOR u.length)
      FROM unnest(${keys.scope}::int4[], ${keys.grain}::int2[], ${keys.start}::int8[], ${keys.bot}::bool[],
        ${intList(clicks)}::int8[], ${intList(uniques)}::int8[], ${intList(at)}::int4[], ${intList(lengths)}::int4[])
        AS u(scope, grain, start, bot, clicks, uniques, at, length)
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
