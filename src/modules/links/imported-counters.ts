/**
 * The link counters' imported columns (table.ts link_counters), written by an import's history
 * writer (imports/history) on either engine, inside the transaction that stores the history:
 * where the link's history came from, when first, how much (the richest kind kept: visits over
 * daily over total over none) and the clicks it brought. A total is the link's starting
 * clickCount: set (not added) so a resumed import that gives it again counts it once, and only
 * on a link no richer history was imported into.
 */
import type { Database } from 'bun:sqlite';
import type { Pg } from '../../db/postgres/client';
import { linkVariantsPostgres, linkVariantsSqlite } from '../variants/public';
import type { ImportedHistory } from './model';

export type ImportedKind = ImportedHistory['history'];

/** Kinds in the order of richness: a later one replaces an earlier one. */
const RANK = 'none,total,daily,visits';

export interface ImportedMark {
  linkId: string;
  source: string;
  history: ImportedKind;
  /** Clicks the history just stored adds (0 for none). */
  clicks: number;
  at: number;
}

const MARK_SQLITE = `UPDATE link_counters SET imported_source = coalesce(imported_source, ?1),
    imported_at = coalesce(imported_at, ?2),
    imported_history = CASE WHEN imported_history IS NULL OR instr('${RANK}', ?3) > instr('${RANK}', imported_history)
      THEN ?3 ELSE imported_history END,
    imported_clicks = coalesce(imported_clicks, 0) + ?4
  WHERE link_id = ?5`;

/** SQLite: notes history stored for a link (inside the caller's transaction); false when the link is gone. */
export function markImportedSqlite(sqlite: Database, m: ImportedMark): boolean {
  return sqlite.query(MARK_SQLITE).run(m.source, m.at, m.history, m.clicks, m.linkId).changes > 0;
}

/** Whether the link may take a total: no richer history was imported into it. */
const TAKES_TOTAL = "(imported_history IS NULL OR imported_history IN ('none', 'total'))";

/**
 * SQLite: sets a link's starting clickCount to the source's total (see the header), inside the
 * caller's transaction; returns what it added to clickCount (0 for the same total again), null
 * when the link is gone or has richer history.
 */
export function setImportedTotalSqlite(sqlite: Database, m: Omit<ImportedMark, 'history'>): number | null {
  const before = sqlite
    .query<{ n: number | null }, [string]>(
      `SELECT CASE WHEN imported_history = 'total' THEN coalesce(imported_clicks, 0) ELSE 0 END AS n
       FROM link_counters WHERE link_id = ? AND ${TAKES_TOTAL}`,
    )
    .get(m.linkId);
  if (before === null) return null;
  sqlite
    .query(
      `UPDATE link_counters SET clicks = max(0, clicks + ?1 - ?5), imported_source = coalesce(imported_source, ?2),
        imported_at = coalesce(imported_at, ?3), imported_history = 'total', imported_clicks = ?1
      WHERE link_id = ?4`,
    )
    .run(m.clicks, m.source, m.at, m.linkId, before.n ?? 0);
  return m.clicks - (before.n ?? 0);
}

/** Counts added to a link beside its other history (imports' SourceLink.countedOnly). */
export interface ImportedCounts {
  linkId: string;
  source: string;
  clicks: number;
  uniques: number;
  bots: number;
  at: number;
}

const ADD_COUNTS_SQLITE = `UPDATE link_counters SET clicks = clicks + ?1, uniques = uniques + ?2, bots = bots + ?3
  WHERE link_id = ?4`;

/**
 * SQLite: adds another Slink's counts beyond a link's visits and days to its counters and notes
 * them as a total (a richer kind already noted stays), inside the caller's transaction, which
 * also marks them set (the caller's history position), so they are added once. Unlike a
 * total, taken beside any history. False when the link is gone.
 */
export function addImportedCountsSqlite(sqlite: Database, c: ImportedCounts): boolean {
  if (sqlite.query(ADD_COUNTS_SQLITE).run(c.clicks, c.uniques, c.bots, c.linkId).changes === 0) return false;
  return markImportedSqlite(sqlite, { ...c, history: 'total', clicks: c.clicks + c.bots });
}

/** PostgreSQL: addImportedCountsSqlite's statements, inside the caller's transaction. */
export async function addImportedCountsPg(tx: Pg, c: ImportedCounts): Promise<boolean> {
  const done = await tx`UPDATE link_counters SET clicks = clicks + ${c.clicks}::int8,
      uniques = uniques + ${c.uniques}::int8, bots = bots + ${c.bots}::int8
    WHERE link_id = ${c.linkId} RETURNING 1`;
  if (done.length === 0) return false;
  await markImportedPg(tx, { ...c, history: 'total', clicks: c.clicks + c.bots });
  return true;
}

/** PostgreSQL: markImportedSqlite's statement. */
export async function markImportedPg(tx: Pg, m: ImportedMark): Promise<void> {
  await tx`UPDATE link_counters SET imported_source = coalesce(imported_source, ${m.source}),
      imported_at = coalesce(imported_at, ${m.at}::int8),
      imported_history = CASE WHEN imported_history IS NULL
          OR strpos(${RANK}, ${m.history}::text) > strpos(${RANK}, imported_history)
        THEN ${m.history}::text ELSE imported_history END,
      imported_clicks = coalesce(imported_clicks, 0) + ${m.clicks}::int8
    WHERE link_id = ${m.linkId}`;
}

/** PostgreSQL: markImportedPg for many links in one statement. */
export async function markImportedManyPg(tx: Pg, marks: readonly ImportedMark[]): Promise<void> {
  if (marks.length === 0) return;
  await tx`UPDATE link_counters c SET imported_source = coalesce(c.imported_source, u.source),
      imported_at = coalesce(c.imported_at, u.at),
      imported_history = CASE WHEN c.imported_history IS NULL
          OR strpos(${RANK}, u.history) > strpos(${RANK}, c.imported_history)
        THEN u.history ELSE c.imported_history END,
      imported_clicks = coalesce(c.imported_clicks, 0) + u.clicks
    FROM unnest(${tx.array(
      marks.map((m) => m.linkId),
      'text',
    )}::text[], ${tx.array(
      marks.map((m) => m.source),
      'text',
    )}::text[], ${tx.array(
      marks.map((m) => m.history),
      'text',
    )}::text[], ${tx.array(
      marks.map((m) => m.clicks),
      'int8',
    )}::int8[], ${tx.array(
      marks.map((m) => m.at),
      'int8',
    )}::int8[]) AS u(id, source, history, clicks, at)
    WHERE c.link_id = u.id`;
}

/** PostgreSQL: setImportedTotalSqlite's statements, inside the caller's transaction. */
export async function setImportedTotalPg(tx: Pg, m: Omit<ImportedMark, 'history'>): Promise<number | null> {
  const [before] =
    await tx`SELECT CASE WHEN imported_history = 'total' THEN coalesce(imported_clicks, 0) ELSE 0 END AS n
    FROM link_counters WHERE link_id = ${m.linkId} AND ${tx.unsafe(TAKES_TOTAL)} FOR UPDATE`;
  if (before === undefined) return null;
  const old = Number(before.n);
  await tx`UPDATE link_counters SET clicks = greatest(0, clicks + ${m.clicks}::int8 - ${old}::int8),
      imported_source = coalesce(imported_source, ${m.source}), imported_at = coalesce(imported_at, ${m.at}::int8),
      imported_history = 'total', imported_clicks = ${m.clicks}::int8
    WHERE link_id = ${m.linkId}`;
  return m.clicks - old;
}

/** SQLite: what an imported click points to (its link's destination and params), null when the link is gone. */
export function importTargetSqlite(
  sqlite: Database,
  linkId: string,
): { destination: string; paramsJson: string; variants: Map<string, string> } | null {
  const link = sqlite
    .query<{ destination: string; paramsJson: string }, [string]>(
      'SELECT destination, params AS paramsJson FROM links WHERE id = ?',
    )
    .get(linkId);
  if (link === null) return null;
  return { ...link, variants: linkVariantsSqlite(sqlite, linkId) };
}

/** PostgreSQL: importTargetSqlite's, for many links in one query (those gone are absent). */
export async function importTargetsPg(
  sql: Pg,
  linkIds: readonly string[],
): Promise<Map<string, { destination: string; paramsJson: string; variants: Map<string, string> }>> {
  const ids = [...new Set(linkIds)];
  // Side by side: the variants of a link gone meanwhile are never looked at.
  const [rows, variants] = await Promise.all([
    sql<{ id: string; destination: string; params: string }[]>`
      SELECT id, destination, params FROM links WHERE id = ANY(${sql.array(ids, 'text')}::text[])`,
    linkVariantsPostgres(sql, ids),
  ]);
  return new Map(
    rows.map((r) => [
      r.id,
      { destination: r.destination, paramsJson: r.params, variants: variants.get(r.id) ?? new Map() },
    ]),
  );
}
