/**
 * The click writer's statements on links, prepared once on its own connection (the writer
 * Worker's): which of a batch's links still exist, and adding a batch's clicks to their
 * counters, rows of link_counters (table.ts says why they are not columns of links). Counters
 * are not redirect facts (the slug index counts in memory), so these are not writes through
 * writeLinks. Plain bun:sqlite: this is the hot write path.
 */
import type { Database } from 'bun:sqlite';
import { intList, intOrNullList, type Pg, textList } from '../../db/postgres/client';
import type { EventLink } from '../webhooks/public';

interface LinkCounterStatements {
  /** The ids among these that name a link. */
  existing(ids: Iterable<string>): Set<string>;
  /** The same with their slugs and domain ids, by id (a batch whose `clicks` events are recorded: their records name them). */
  existingWithSlugs(ids: Iterable<string>): Map<string, EventLink>;
  /** Adds clicks to a link's counters; `last` (the newest human click) never moves back. */
  bump(id: string, humans: number, uniques: number, bots: number, last: number | null): void;
  /** Every link's counters back to zero, before they are summed again from the raw clicks (the upgrade). */
  resetAll(): void;
}

/** The stored human clicks of these links (those that exist), by id. */
export function storedHumansSqlite(sqlite: Database, ids: Iterable<string>): Map<string, number> {
  const rows = sqlite
    .query<{ id: string; clicks: number }, [string]>(
      'SELECT link_id AS id, clicks FROM link_counters WHERE link_id IN (SELECT value FROM json_each(?))',
    )
    .all(JSON.stringify([...new Set(ids)]));
  return new Map(rows.map((r) => [r.id, r.clicks]));
}

export function prepareLinkCounters(sqlite: Database): LinkCounterStatements {
  // One statement per batch instead of one per link: a batch holds up to one click per link.
  const existing = sqlite.prepare<{ id: string }, [string]>(
    'SELECT id FROM links WHERE id IN (SELECT value FROM json_each(?))',
  );
  // Apart from the above: reading the slug costs each row a lookup the id alone does not.
  const withSlugs = sqlite.prepare<EventLink & { id: string }, [string]>(
    'SELECT id, slug, domain_id AS domainId FROM links WHERE id IN (SELECT value FROM json_each(?))',
  );
  const bump = sqlite.prepare<unknown, [number, number, number, number | null, string]>(
    `UPDATE link_counters SET clicks = clicks + ?1, uniques = uniques + ?2, bots = bots + ?3,
       last_clicked_at = CASE WHEN ?4 IS NULL THEN last_clicked_at ELSE max(coalesce(last_clicked_at, 0), ?4) END
     WHERE link_id = ?5`,
  );
  return {
    existing(ids) {
      const found = new Set<string>();
      for (const row of existing.all(JSON.stringify([...new Set(ids)]))) found.add(row.id);
      return found;
    },
    existingWithSlugs(ids) {
      return new Map(
        withSlugs.all(JSON.stringify([...new Set(ids)])).map((r) => [r.id, { slug: r.slug, domainId: r.domainId }]),
      );
    },
    bump(id, humans, uniques, bots, last) {
      bump.run(humans, uniques, bots, last, id);
    },
    resetAll() {
      sqlite.run('UPDATE link_counters SET clicks = 0, uniques = 0, bots = 0, last_clicked_at = NULL');
    },
  };
}

/** PostgreSQL: existingLinks with their slugs and domain ids, by id (a batch whose `clicks` events are recorded). */
export async function existingLinksWithSlugs(tx: Pg, ids: Iterable<string>): Promise<Map<string, EventLink>> {
  const rows = await tx<{ id: string; slug: string; domain_id: number }[]>`
    SELECT id, slug, domain_id FROM links WHERE id = ANY(${tx.array([...new Set(ids)], 'text')}::text[])`;
  return new Map(rows.map((r) => [r.id, { slug: r.slug, domainId: r.domain_id }]));
}

/** A link's additions from one batch (PostgreSQL). */
export interface CounterBump {
  id: string;
  humans: number;
  uniques: number;
  bots: number;
  last: number | null;
}

/**
 * PostgreSQL: the ids among these that still name a link. Inside a transaction holding the
 * click barrier (db/postgres/locks.ts), no link's deletion commits before that transaction ends.
 */
export async function existingLinks(tx: Pg, ids: Iterable<string>): Promise<Set<string>> {
  const rows = await tx`SELECT id FROM links WHERE id = ANY(${textList([...new Set(ids)])}::text[])`;
  return new Set(rows.map((r: { id: string }) => r.id));
}

/** PostgreSQL: adds a fold's clicks to its links' counters, in one statement; `last` never moves back. */
export async function bumpLinkCounters(tx: Pg, bumps: readonly CounterBump[]): Promise<void> {
  if (bumps.length === 0) return;
  await tx`UPDATE link_counters c SET clicks = c.clicks + u.humans, uniques = c.uniques + u.uniques,
      bots = c.bots + u.bots,
      last_clicked_at = CASE WHEN u.last IS NULL THEN c.last_clicked_at ELSE greatest(coalesce(c.last_clicked_at, 0), u.last) END
    FROM unnest(${textList(bumps.map((b) => b.id))}::text[], ${intList(bumps.map((b) => b.humans))}::int8[], ${intList(bumps.map((b) => b.uniques))}::int8[],
      ${intList(bumps.map((b) => b.bots))}::int8[], ${intOrNullList(bumps.map((b) => b.last))}::int8[])
      AS u(id, humans, uniques, bots, last)
    WHERE c.link_id = u.id`;
}

/** Visits a link's fallback URL answered since the last flush: [link id, visits]. */
export type FallbackVisits = readonly [id: string, visits: number];

/**
 * SQLite: adds visits answered with their fallback URL to links' counters, in one transaction.
 * A link deleted meanwhile has no row: nothing to add to.
 */
export function addFallbackVisits(sqlite: Database, visits: readonly FallbackVisits[]): void {
  if (visits.length === 0) return;
  const add = sqlite.prepare<unknown, [number, string]>(
    'UPDATE link_counters SET fallback_visits = fallback_visits + ?1 WHERE link_id = ?2',
  );
  sqlite.transaction(() => {
    for (const [id, n] of visits) add.run(n, id);
  })();
}

/** PostgreSQL: the same in one statement; an addition, so nodes adding at once all count. */
export async function addFallbackVisitsPg(sql: Pg, visits: readonly FallbackVisits[]): Promise<void> {
  if (visits.length === 0) return;
  await sql`UPDATE link_counters c SET fallback_visits = c.fallback_visits + u.n
    FROM unnest(${sql.array(
      visits.map(([id]) => id),
      'text',
    )}::text[], ${sql.array(
      visits.map(([, n]) => n),
      'int8',
    )}::int8[]) AS u(id, n)
    WHERE c.link_id = u.id`;
}
