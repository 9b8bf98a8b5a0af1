/**
 * The imports store on PostgreSQL. The node running an import holds a session advisory lock on
 * the source's identity (IMPORT_LOCK_CLASS, the identity's hashtext) on a connection of its own
 * for as long as the run lasts: a second node cannot start the same identity, and a run marked
 * running whose lock nobody holds has lost its process (the node died; PostgreSQL let the lock
 * go with its connection).
 */
import { num, numOrNull, type Pg, storable } from '../../../db/postgres/client';
import { IMPORT_LOCK_CLASS } from '../../../db/postgres/locks';
import type { HistoryPosition } from '../history';
import type { ImportItemRow, ImportLinkRow, ImportStore, RunProgress } from '../store';
import { claimOn, type Int8, toRun } from './runs';
import { createPostgresTakeoverStore, endRun, LIVE_COPY } from './takeover';

/** How long a start waits for a source whose last run has just ended (PostgreSQL's lock_timeout). */
const ENDING_WAIT = '5s';

function toMapping(r: Record<string, unknown>): ImportLinkRow {
  return {
    identity: r.identity as string,
    sourceId: r.source_id as string,
    linkId: r.link_id as string,
    state: r.state as ImportLinkRow['state'],
    runId: r.run_id as string,
    visitAt: numOrNull(r.visit_at as Int8 | null),
    visitAtCount: num(r.visit_at_count as Int8),
    day: r.day as string | null,
    totalSet: r.total_set as boolean,
    sourceCounts:
      r.source_counts === null || r.source_counts === undefined ? null : JSON.parse(r.source_counts as string),
    at: num(r.at as Int8),
  };
}

function toItem(r: Record<string, unknown>): ImportItemRow {
  return {
    runId: r.run_id as string,
    seq: num(r.seq as Int8),
    sourceId: r.source_id as string,
    outcome: r.outcome as ImportItemRow['outcome'],
    linkId: r.link_id as string | null,
    shortUrl: r.short_url as string | null,
    reason: r.reason as string | null,
  };
}

/**
 * Saves a run's progress but its clicks: clicks_imported is added to by the history writer in
 * each transaction that stores clicks of the run (countRunClicksPg), so clicks stored on a page
 * its node died before saving are counted all the same.
 */
async function saveProgress(tx: Pg, id: string, p: RunProgress) {
  return tx`UPDATE import_runs SET links_seen = ${p.linksSeen}, links_created = ${p.linksCreated},
      links_skipped = ${p.linksSkipped}, links_existing = ${p.linksExisting}, links_failed = ${p.linksFailed},
      errors = ${JSON.stringify(p.errors)}, cursor = ${p.cursor}
    WHERE id = ${id} RETURNING cancel_requested`;
}

export function createPostgresImportStore(sql: Pg): ImportStore {
  // A run a live node holds a copy of the secret of is left to it: that node takes it over.
  const failRunning = async (tx: Pg, identity: string, reason: string, now: number) => {
    const failed = await tx`UPDATE import_runs SET status = 'failed', ended_at = ${now},
        errors = (errors::jsonb || jsonb_build_array(jsonb_build_object('source', '', 'reason', ${reason}::text)))::text
      WHERE identity = ${identity} AND status = 'running' AND NOT ${LIVE_COPY(tx)} RETURNING id`;
    for (const r of failed) await endRun(tx, r.id as string);
    const [left] = await tx`SELECT id FROM import_runs WHERE identity = ${identity} AND status = 'running'`;
    return left?.id as string | undefined;
  };
  return {
    takeover: createPostgresTakeoverStore(sql),
    async begin(row, interrupted) {
      const conn = await sql.reserve();
      try {
        const [lock] =
          await conn`SELECT pg_try_advisory_lock(${IMPORT_LOCK_CLASS}, hashtext(${row.identity})) AS taken`;
        if (!lock!.taken) {
          const [running] =
            await sql`SELECT id FROM import_runs WHERE identity = ${row.identity} AND status = 'running'`;
          // Held with no run marked running: its holder has just ended its run and lets the source
          // go next (or is starting one): waited for, up to ENDING_WAIT.
          const waited =
            running === undefined &&
            (await conn
              .begin(async (tx) => {
                await tx.unsafe(`SET LOCAL lock_timeout = '${ENDING_WAIT}'`);
                await tx`SELECT pg_advisory_lock(${IMPORT_LOCK_CLASS}, hashtext(${row.identity}))`;
                return true;
              })
              .catch(() => false));
          if (!waited) {
            conn.release();
            return { running: (running?.id as string | undefined) ?? 'another node' };
          }
        }
        // Whatever is marked running for this identity lost its node: nobody held the lock.
        const left = await conn.begin(async (tx) => {
          const taken = await failRunning(tx, row.identity, interrupted, row.startedAt);
          if (taken !== undefined) return taken;
          await tx`INSERT INTO import_runs (id, source, url, identity, options, status, links_seen, links_created,
              links_skipped, links_failed, clicks_imported, errors, cursor, cancel_requested, node, pid, instance,
              account_id, via, started_at, ended_at, file_head)
            VALUES (${row.id}, ${row.source}, ${row.url}, ${row.identity}, ${JSON.stringify(row.options)}, ${row.status},
              0, 0, 0, 0, 0, ${JSON.stringify(row.errors)}, ${row.cursor}, false, ${row.node}, ${row.pid},
              ${row.instance}, ${row.accountId}, ${row.via}, ${row.startedAt}, null, ${row.fileHead})`;
          return undefined;
        });
        const claim = claimOn(conn, row.identity);
        if (left === undefined) return { claim };
        // A live node is about to take that run over (it holds a copy of its secret).
        await claim.release();
        return { running: left };
      } catch (err) {
        conn.release();
        throw err;
      }
    },
    async find(id) {
      // A text holding NUL is never stored (client.ts, storable): no run has that id.
      if (!storable(id)) return null;
      const [row] = await sql`SELECT * FROM import_runs WHERE id = ${id}`;
      return row ? toRun(row) : null;
    },
    async list(limit) {
      const rows = await sql`SELECT * FROM import_runs ORDER BY started_at DESC, id DESC LIMIT ${limit}`;
      return rows.map(toRun);
    },
    async markInterrupted(run, reason, now) {
      return sql.begin(async (tx) => {
        // Held by the node running it (its own connection), even when that node is this one.
        const [lock] =
          await tx`SELECT pg_try_advisory_xact_lock(${IMPORT_LOCK_CLASS}, hashtext(${run.identity})) AS taken`;
        if (!lock!.taken) return false;
        const gone = await tx`UPDATE import_runs SET status = 'failed', ended_at = ${now},
            errors = (errors::jsonb || jsonb_build_array(jsonb_build_object('source', '', 'reason', ${reason}::text)))::text
          WHERE id = ${run.id} AND status = 'running' AND NOT ${LIVE_COPY(tx)} RETURNING id`;
        if (gone.length > 0) await endRun(tx, run.id);
        return gone.length > 0;
      });
    },
    async lastUnfinished(identity, excludeId, file) {
      const [row] = await sql`SELECT * FROM import_runs WHERE identity = ${identity} AND id <> ${excludeId}
          AND (options::jsonb ->> 'dryRun') IS DISTINCT FROM 'true'
          AND (${file}::text IS NULL OR options::jsonb ->> 'file' = ${file}::text)
        ORDER BY started_at DESC, id DESC LIMIT 1`;
      return row && row.status !== 'done' ? toRun(row) : null;
    },
    async fileRuns(identity, fileHead, excludeId, limit, before) {
      const rows = await sql`SELECT * FROM import_runs WHERE identity = ${identity} AND file_head = ${fileHead}
          AND id <> ${excludeId} AND (options::jsonb ->> 'dryRun') IS DISTINCT FROM 'true'
          AND (${before === null}::bool OR (started_at, id) < (${before?.startedAt ?? 0}::int8, ${before?.id ?? ''}::text))
        ORDER BY started_at DESC, id DESC LIMIT ${limit}`;
      return rows.map(toRun);
    },
    async savePage(id, progress, items) {
      return sql.begin(async (tx) => {
        if (items.length > 0) {
          await tx`INSERT INTO import_items (run_id, seq, source_id, outcome, link_id, short_url, reason)
            SELECT * FROM unnest(${tx.array(
              items.map((i) => i.runId),
              'text',
            )}::text[], ${tx.array(
              items.map((i) => i.seq),
              'int8',
            )}::int8[], ${tx.array(
              items.map((i) => i.sourceId),
              'text',
            )}::text[], ${tx.array(
              items.map((i) => i.outcome),
              'text',
            )}::text[], ${tx.array(
              items.map((i) => i.linkId),
              'text',
            )}::text[], ${tx.array(
              items.map((i) => i.shortUrl),
              'text',
            )}::text[], ${tx.array(
              items.map((i) => i.reason),
              'text',
            )}::text[])`;
        }
        const [row] = await saveProgress(tx, id, progress);
        return row?.cancel_requested === true;
      });
    },
    async finish(id, status, progress, endedAt) {
      await sql.begin(async (tx) => {
        await saveProgress(tx, id, progress);
        await tx`UPDATE import_runs SET status = ${status}, ended_at = ${endedAt} WHERE id = ${id}`;
        await endRun(tx, id);
      });
    },
    async requestCancel(id) {
      const rows =
        await sql`UPDATE import_runs SET cancel_requested = true WHERE id = ${id} AND status = 'running' RETURNING id`;
      return rows.length > 0;
    },
    async mappings(identity, sourceIds) {
      const out = new Map<string, ImportLinkRow>();
      if (sourceIds.length === 0) return out;
      const rows = await sql`SELECT * FROM import_links WHERE identity = ${identity}
        AND source_id = ANY(${sql.array([...sourceIds], 'text')}::text[])`;
      for (const r of rows) out.set(r.source_id as string, toMapping(r));
      return out;
    },
    async putMapping(r) {
      await upsertMapping(sql, r);
    },
    async putMappingsIn(tx, rows) {
      await upsertMappings(tx as unknown as Pg, rows);
    },
    async putMappings(rows) {
      // A page's mappings in one transaction, their statements pipelined on its connection.
      if (rows.length > 0) await sql.begin((tx) => Promise.all(rows.map((r) => upsertMapping(tx, r))));
    },
    async reported(runId, sourceIds) {
      const rows = await sql`SELECT DISTINCT source_id FROM import_items
        WHERE run_id = ${runId} AND source_id = ANY(${sql.array([...sourceIds], 'text')}::text[])`;
      return new Set(rows.map((r: Record<string, unknown>) => r.source_id as string));
    },
    async items(runId, afterSeq, limit) {
      const rows = await sql`SELECT * FROM import_items WHERE run_id = ${runId} AND seq > ${afterSeq}
        ORDER BY seq LIMIT ${limit}`;
      return rows.map(toItem);
    },
  };
}

/** Moves a mapping's history position on: inside the transaction that stores that history. */
/** Adds clicks stored to their runs' counts, in the transaction that stores them (saveProgress). */
export async function countRunClicksPg(tx: Pg, counts: ReadonlyMap<string, number>): Promise<void> {
  const runs = [...counts].filter(([, n]) => n > 0);
  if (runs.length === 0) return;
  await tx`UPDATE import_runs AS r SET clicks_imported = r.clicks_imported + n.clicks
    FROM unnest(${tx.array(
      runs.map(([id]) => id),
      'text',
    )}::text[], ${tx.array(
      runs.map(([, n]) => n),
      'int8',
    )}::int8[]) AS n(id, clicks)
    WHERE r.id = n.id`;
}

/** A position's run with the clicks its call stored, for countRunClicksPg. */
export const runClicks = (position: HistoryPosition | undefined, clicks: number): Map<string, number> =>
  new Map(position?.runId === undefined ? [] : [[position.runId, clicks]]);

/** A position's source counts as stored (JSON), or null: not moved. */
const countsOf = (p: HistoryPosition): string | null =>
  p.sourceCounts === undefined ? null : JSON.stringify(p.sourceCounts);

export async function savePositionPg(tx: Pg, p: HistoryPosition): Promise<void> {
  const at = p.visitAt ?? null;
  const count = p.visitAtCount ?? 1;
  // (visit_at, visit_at_count) only moves on: a later instant, or more visits at the same one.
  const later = tx`${at}::int8 IS NOT NULL AND (visit_at IS NULL OR ${at}::int8 > visit_at
    OR (${at}::int8 = visit_at AND ${count}::int8 > visit_at_count))`;
  await tx`UPDATE import_links SET
      visit_at = CASE WHEN ${later} THEN ${at}::int8 ELSE visit_at END,
      visit_at_count = CASE WHEN ${later} THEN ${count}::int8 ELSE visit_at_count END,
      day = coalesce(${p.day ?? null}::text, day),
      total_set = coalesce(${p.totalSet ?? null}::boolean, total_set),
      source_counts = coalesce(${countsOf(p)}::text, source_counts)
    WHERE identity = ${p.identity} AND source_id = ${p.sourceId}`;
}

/**
 * Moves several mappings' positions on in one statement (a batch of many links' history: one
 * round trip, not one each), each as savePositionPg moves one. A batch naming a source link
 * twice (never from the runner, which awaits each link's batches in turn) is saved one
 * position after another, in order, so each moves on from the one before.
 */
export async function savePositionsPg(tx: Pg, positions: readonly HistoryPosition[]): Promise<void> {
  const keys = new Set(positions.map((p) => `${p.identity}\u0000${p.sourceId}`));
  if (positions.length < 2 || keys.size < positions.length) {
    for (const p of positions) await savePositionPg(tx, p);
    return;
  }
  const col = <T>(f: (p: HistoryPosition) => T) => positions.map(f);
  await tx`UPDATE import_links AS m SET
      visit_at = CASE WHEN n.at IS NOT NULL AND (m.visit_at IS NULL OR n.at > m.visit_at
        OR (n.at = m.visit_at AND n.count > m.visit_at_count)) THEN n.at ELSE m.visit_at END,
      visit_at_count = CASE WHEN n.at IS NOT NULL AND (m.visit_at IS NULL OR n.at > m.visit_at
        OR (n.at = m.visit_at AND n.count > m.visit_at_count)) THEN n.count ELSE m.visit_at_count END,
      day = coalesce(n.day, m.day),
      total_set = coalesce(n.total_set, m.total_set),
      source_counts = coalesce(n.source_counts, m.source_counts)
    FROM unnest(${tx.array(
      col((p) => p.identity),
      'text',
    )}::text[], ${tx.array(
      col((p) => p.sourceId),
      'text',
    )}::text[], ${tx.array(
      col((p) => p.visitAt ?? null),
      'int8',
    )}::int8[], ${tx.array(
      col((p) => p.visitAtCount ?? 1),
      'int8',
    )}::int8[], ${tx.array(
      col((p) => p.day ?? null),
      'text',
    )}::text[], ${tx.array(
      col((p) => p.totalSet ?? null),
      'bool',
    )}::bool[], ${tx.array(col(countsOf), 'text')}::text[]) AS n(identity, source_id, at, count, day, total_set, source_counts)
    WHERE m.identity = n.identity AND m.source_id = n.source_id`;
}

/**
 * Mappings written whole in one statement (a page's: one round trip); rows naming a source link
 * twice (a statement cannot change a row twice) are written one after another instead.
 */
async function upsertMappings(tx: Pg, rows: readonly ImportLinkRow[]): Promise<void> {
  const keys = new Set(rows.map((r) => `${r.identity}\u0000${r.sourceId}`));
  if (rows.length < 2 || keys.size < rows.length) {
    for (const r of rows) await upsertMapping(tx, r);
    return;
  }
  const col = <T>(f: (r: ImportLinkRow) => T) => rows.map(f);
  await tx`INSERT INTO import_links (identity, source_id, link_id, state, run_id, visit_at, visit_at_count, day,
      total_set, at)
    SELECT * FROM unnest(${tx.array(
      col((r) => r.identity),
      'text',
    )}::text[], ${tx.array(
      col((r) => r.sourceId),
      'text',
    )}::text[], ${tx.array(
      col((r) => r.linkId),
      'text',
    )}::text[], ${tx.array(
      col((r) => r.state),
      'text',
    )}::text[], ${tx.array(
      col((r) => r.runId),
      'text',
    )}::text[], ${tx.array(
      col((r) => r.visitAt),
      'int8',
    )}::int8[], ${tx.array(
      col((r) => r.visitAtCount),
      'int8',
    )}::int8[], ${tx.array(
      col((r) => r.day),
      'text',
    )}::text[], ${tx.array(
      col((r) => r.totalSet),
      'bool',
    )}::bool[], ${tx.array(
      col((r) => r.at),
      'int8',
    )}::int8[])
    ON CONFLICT (identity, source_id) DO UPDATE SET link_id = excluded.link_id, state = excluded.state,
      run_id = excluded.run_id, visit_at = excluded.visit_at, visit_at_count = excluded.visit_at_count,
      day = excluded.day, total_set = excluded.total_set, at = excluded.at`;
}

/** A mapping written whole: made, or replaced where the source link has one. */
async function upsertMapping(sql: Pg, r: ImportLinkRow): Promise<void> {
  await sql`INSERT INTO import_links (identity, source_id, link_id, state, run_id, visit_at, visit_at_count, day,
      total_set, at)
    VALUES (${r.identity}, ${r.sourceId}, ${r.linkId}, ${r.state}, ${r.runId}, ${r.visitAt}, ${r.visitAtCount},
      ${r.day}, ${r.totalSet}, ${r.at})
    ON CONFLICT (identity, source_id) DO UPDATE SET link_id = excluded.link_id, state = excluded.state,
      run_id = excluded.run_id, visit_at = excluded.visit_at, visit_at_count = excluded.visit_at_count,
      day = excluded.day, total_set = excluded.total_set, at = excluded.at`;
}
