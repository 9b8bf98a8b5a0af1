/**
 * Before a link is deleted (PostgreSQL, inside the delete's transaction): its buckets leave the
 * workspace's, then go (with its day mark), as on SQLite (sqlite/bucket-store.ts). The link's
 * buckets as the statistics read them leave the workspace bucket of the same grain, start and
 * bot flag: its hours, its days before its mark as stored, and its days from the mark on summed
 * from its hours (link-days.ts).
 *
 * The delete's transaction holds the click barrier exclusively (db/postgres/locks.ts): no batch
 * and no fold is in flight meanwhile, so no click of the link is counted after this.
 */
import { num, type Pg } from '../../../db/postgres/client';
import { DenseCounts, decodeCounts, encodeCounts } from '../rollup-codec';
import { GRAIN_CODE } from '../rollups';
import { daysFromHours } from '../sqlite/link-days';
import { countRollupWrite } from './buckets';
import { linkDaysBeforePg } from './link-days';
import { linkValueIdPg } from './values';

export async function forgetLinkRollupsPg(tx: Pg, linkId: string): Promise<void> {
  const scope = await linkValueIdPg(tx, linkId);
  // Never clicked: no value id, no buckets.
  if (scope === null) return;
  const stored: { grain: number; start: string; bot: boolean; clicks: string; uniques: string; data: Uint8Array }[] =
    await tx`SELECT grain, start, bot, clicks, uniques, data FROM rollups WHERE scope = ${scope}`;
  const mark = await linkDaysBeforePg(tx, scope);
  const hours = stored.filter((r) => r.grain === GRAIN_CODE.hour);
  const own = [
    ...hours,
    ...stored.filter((r) => r.grain === GRAIN_CODE.day && num(r.start) < mark),
    ...daysFromHours(
      scope,
      hours
        .filter((h) => num(h.start) >= mark)
        .map((h) => ({
          start: num(h.start),
          bot: h.bot,
          clicks: num(h.clicks),
          uniques: num(h.uniques),
          counts: decodeCounts(h.data),
        })),
    ).map((d) => ({
      grain: GRAIN_CODE.day as number,
      start: String(d.start),
      bot: d.bot,
      clicks: String(d.clicks),
      uniques: String(d.uniques),
      data: encodeCounts(d.counts),
    })),
  ].sort((a, b) => a.grain - b.grain || num(a.start) - num(b.start) || Number(a.bot) - Number(b.bot));
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
