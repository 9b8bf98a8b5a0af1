/**
 * Imported daily counts once counted on PostgreSQL (table.ts imported_days), kept as SQLite's
 * fold keeps them: no raw click holds them, so statistics rebuilt from the raw clicks would
 * otherwise lose them. Run in the transaction that counts them (imports/history/postgres.ts).
 */
import type { Pg } from '../../../db/postgres/client';

export async function keepImportedDaysPg(
  tx: Pg,
  linkId: string,
  days: readonly { start: number; clicks: number }[],
): Promise<void> {
  // A day given twice is one row (a statement's upsert may touch a row once).
  const byDay = new Map<number, number>();
  for (const d of days) byDay.set(d.start, (byDay.get(d.start) ?? 0) + d.clicks);
  if (byDay.size === 0) return;
  await tx`INSERT INTO imported_days (link_id, start, clicks)
    SELECT ${linkId}, d.start, d.clicks
    FROM unnest(${tx.array([...byDay.keys()], 'int8')}::int8[], ${tx.array([...byDay.values()], 'int8')}::int8[])
      AS d(start, clicks)
    ON CONFLICT (link_id, start) DO UPDATE SET clicks = imported_days.clicks + excluded.clicks`;
}

/** The imported daily counts kept of these links, each link's oldest first (the export's, as SQLite's importedDaysOf). */
export async function importedDaysOfPg(
  sql: Pg,
  linkIds: readonly string[],
): Promise<Map<string, { start: number; clicks: number }[]>> {
  const out = new Map<string, { start: number; clicks: number }[]>();
  if (linkIds.length === 0) return out;
  const rows: { link_id: string; start: number; clicks: number }[] = await sql`
    SELECT link_id, start::float8 AS start, clicks::float8 AS clicks FROM imported_days
    WHERE link_id = ANY(${sql.array([...linkIds], 'text')}::text[]) ORDER BY link_id, start`;
  for (const r of rows) {
    const list = out.get(r.link_id);
    if (list === undefined) out.set(r.link_id, [{ start: r.start, clicks: r.clicks }]);
    else list.push({ start: r.start, clicks: r.clicks });
  }
  return out;
}
