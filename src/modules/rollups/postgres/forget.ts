/**
 * Before a link is deleted (PostgreSQL, inside the delete's transaction): its buckets leave the
 * workspace's, then go (with its day mark), as on SQLite (sqlite/bucket-store.ts). A link's hour
 * and day buckets are both complete on PostgreSQL (each fold writes both: postgres/buckets.ts),
 * so each leaves the workspace bucket of its own grain, start and bot flag.
 *
 * The delete's transaction holds the click barrier exclusively (db/postgres/locks.ts): no batch
 * and no fold is in flight meanwhile, so no click of the link is counted after this.
 */
import { num, type Pg } from '../../../db/postgres/client';
import { DenseCounts, decodeCounts } from '../rollup-codec';
import { countRollupWrite } from './buckets';
import { linkValueIdPg } from './values';

export async function forgetLinkRollupsPg(tx: Pg, linkId: string): Promise<void> {
  const scope = await linkValueIdPg(tx, linkId);
  // Never clicked: no value id, no buckets.
  if (scope === null) return;
  const own = await tx`SELECT grain, start, bot, clicks, uniques, data FROM rollups WHERE scope = ${scope}
    ORDER BY grain, start, bot`;
  if (own.length > 0) {
    // Folds that cached these workspace buckets must read them again (postgres/buckets.ts).
    await countRollupWrite(tx);
    const workspace = await tx`SELECT r.grain, r.start, r.bot, r.clicks, r.uniques, r.data FROM rollups r
      JOIN unnest(${tx.array(
        own.map((r: { grain: number }) => r.grain),
        'int2',
      )}::int2[], ${tx.array(
        own.map((r: { start: string }) => r.start),
        'int8',
      )}::int8[], ${tx.array(
        own.map((r: { bot: boolean }) => r.bot),
        'bool',
      )}::bool[]) AS u(grain, start, bot)
        ON r.scope = 0 AND r.grain = u.grain AND r.start = u.start AND r.bot = u.bot
      ORDER BY r.grain, r.start, r.bot
      FOR UPDATE OF r`;
    const byKey = new Map(
      workspace.map((w: { grain: number; start: string; bot: boolean }) => [`${w.grain}|${w.start}|${w.bot}`, w]),
    );
    for (const b of own) {
      const w = byKey.get(`${b.grain}|${b.start}|${b.bot}`) as
        | { clicks: string; uniques: string; data: Uint8Array }
        | undefined;
      if (w === undefined) continue;
      const clicks = num(w.clicks) - num(b.clicks);
      if (clicks <= 0) {
        await tx`DELETE FROM rollups WHERE scope = 0 AND grain = ${b.grain} AND start = ${b.start} AND bot = ${b.bot}`;
        continue;
      }
      const counts = DenseCounts.fromBlob(w.data);
      counts.merge(decodeCounts(b.data), -1);
      counts.add(scope, -num(b.clicks));
      await tx`UPDATE rollups SET clicks = ${clicks}, uniques = ${num(w.uniques) - num(b.uniques)}, data = ${counts.encode()}
        WHERE scope = 0 AND grain = ${b.grain} AND start = ${b.start} AND bot = ${b.bot}`;
    }
  }
  await tx`DELETE FROM rollups WHERE scope = ${scope}`;
  await tx`DELETE FROM rollup_marks WHERE scope = ${scope}`;
}
