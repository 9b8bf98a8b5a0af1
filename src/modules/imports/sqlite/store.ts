/**
 * The imports store on SQLite. Every process on the file is on this machine, so a run marked
 * running is alive while its process is (IsAlive reads the process id it recorded); the
 * partial unique index keeps two processes from starting one identity at once.
 */
import type { Database, Statement } from 'bun:sqlite';
import { and, asc, desc, eq, getTableColumns, gt, inArray, lt, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import type { HistoryPosition } from '../history';
import type { ImportStore, RunProgress } from '../store';
import { type ImportLinkRow, importItems, importLinks, importRuns } from '../table';

const progressColumns = (p: RunProgress) => ({
  linksSeen: p.linksSeen,
  linksCreated: p.linksCreated,
  linksSkipped: p.linksSkipped,
  linksExisting: p.linksExisting,
  linksFailed: p.linksFailed,
  clicksImported: p.clicksImported,
  errors: p.errors,
  cursor: p.cursor,
});

/**
 * A mapping written (inserted, or every column replaced) by one statement prepared once, its
 * columns those of the table: built and prepared by the query builder for each row, a page's
 * mappings took a sixth of a whole SQLite import's time.
 */
function mappingWriter(sqlite: Database): (row: ImportLinkRow) => void {
  const columns = Object.entries(getTableColumns(importLinks)) as [keyof ImportLinkRow, { name: string }][];
  const names = columns.map(([, c]) => c.name);
  const sql = `INSERT INTO import_links (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})
     ON CONFLICT (identity, source_id) DO UPDATE SET ${names.map((n) => `${n} = excluded.${n}`).join(', ')}`;
  // Prepared at the first write: the store is made before the file is migrated.
  let statement: Statement<unknown, (string | number | null)[]> | null = null;
  return (row) => {
    statement ??= sqlite.prepare(sql);
    statement.run(
      ...columns.map(([key]) => {
        const v = row[key];
        if (typeof v === 'boolean') return v ? 1 : 0;
        return v !== null && typeof v === 'object' ? JSON.stringify(v) : (v ?? null);
      }),
    );
  };
}

export function createSqliteImportStore(db: Db): ImportStore {
  const immediate = <T>(write: () => T): T => db.transaction(write, { behavior: 'immediate' });
  const putMappingRow = mappingWriter(db.$client);
  return {
    async begin(row, interrupted, isAlive) {
      return immediate(() => {
        const running = db
          .select()
          .from(importRuns)
          .where(and(eq(importRuns.identity, row.identity), eq(importRuns.status, 'running')))
          .all();
        for (const run of running) {
          if (isAlive(run)) return { running: run.id };
          db.update(importRuns)
            .set({
              status: 'failed',
              endedAt: row.startedAt,
              errors: [...run.errors, { source: '', reason: interrupted }],
            })
            .where(eq(importRuns.id, run.id))
            .run();
        }
        db.insert(importRuns).values(row).run();
        return { claim: { release: async () => {} } };
      });
    },
    async find(id) {
      return db.select().from(importRuns).where(eq(importRuns.id, id)).get() ?? null;
    },
    async list(limit) {
      return db.select().from(importRuns).orderBy(desc(importRuns.startedAt), desc(importRuns.id)).limit(limit).all();
    },
    async markInterrupted(run, reason, now, isAlive) {
      return immediate(() => {
        const current = db.select().from(importRuns).where(eq(importRuns.id, run.id)).get();
        if (current?.status !== 'running' || isAlive(current)) return false;
        db.update(importRuns)
          .set({ status: 'failed', endedAt: now, errors: [...current.errors, { source: '', reason }] })
          .where(eq(importRuns.id, run.id))
          .run();
        return true;
      });
    },
    async lastUnfinished(identity, excludeId, file) {
      const last = db
        .select()
        .from(importRuns)
        .where(and(eq(importRuns.identity, identity), ne(importRuns.id, excludeId)))
        .orderBy(desc(importRuns.startedAt), desc(importRuns.id))
        .all()
        .find((r) => r.options.dryRun !== true && (file === null || r.options.file === file));
      return last && last.status !== 'done' ? last : null;
    },
    async fileRuns(identity, fileHead, excludeId, limit, before) {
      const older =
        before === null
          ? undefined
          : or(
              lt(importRuns.startedAt, before.startedAt),
              and(eq(importRuns.startedAt, before.startedAt), lt(importRuns.id, before.id)),
            );
      return db
        .select()
        .from(importRuns)
        .where(
          and(
            eq(importRuns.identity, identity),
            eq(importRuns.fileHead, fileHead),
            ne(importRuns.id, excludeId),
            sql`coalesce(json_extract(${importRuns.options}, '$.dryRun'), 0) <> 1`,
            older,
          ),
        )
        .orderBy(desc(importRuns.startedAt), desc(importRuns.id))
        .limit(limit)
        .all();
    },
    async savePage(id, progress, items) {
      return immediate(() => {
        if (items.length > 0) db.insert(importItems).values(items).run();
        const row = db
          .update(importRuns)
          .set(progressColumns(progress))
          .where(eq(importRuns.id, id))
          .returning({ cancel: importRuns.cancelRequested })
          .get();
        return row?.cancel === true;
      });
    },
    async finish(id, status, progress, endedAt) {
      db.update(importRuns)
        .set({ ...progressColumns(progress), status, endedAt })
        .where(eq(importRuns.id, id))
        .run();
    },
    async requestCancel(id) {
      const row = db
        .update(importRuns)
        .set({ cancelRequested: true })
        .where(and(eq(importRuns.id, id), eq(importRuns.status, 'running')))
        .returning({ id: importRuns.id })
        .get();
      return row !== undefined;
    },
    async mappings(identity, sourceIds) {
      const out = new Map();
      for (let i = 0; i < sourceIds.length; i += 500) {
        const rows = db
          .select()
          .from(importLinks)
          .where(and(eq(importLinks.identity, identity), inArray(importLinks.sourceId, sourceIds.slice(i, i + 500))))
          .all();
        for (const r of rows) out.set(r.sourceId, r);
      }
      return out;
    },
    async putMapping(row) {
      putMappingRow(row);
    },
    async putMappings(rows) {
      // A page's mappings in one commit, each written as putMapping writes one.
      immediate(() => {
        for (const row of rows) putMappingRow(row);
      });
    },
    putMappingsIn(_tx, rows) {
      // The transaction is this connection's (the links' store shares it): the rows go in it.
      for (const row of rows) putMappingRow(row);
    },
    async reported(runId, sourceIds) {
      const rows = db
        .selectDistinct({ sourceId: importItems.sourceId })
        .from(importItems)
        .where(and(eq(importItems.runId, runId), inArray(importItems.sourceId, [...sourceIds])))
        .all();
      return new Set(rows.map((r) => r.sourceId));
    },
    async items(runId, afterSeq, limit) {
      return db
        .select()
        .from(importItems)
        .where(and(eq(importItems.runId, runId), gt(importItems.seq, afterSeq)))
        .orderBy(asc(importItems.seq))
        .limit(limit)
        .all();
    },
  };
}

/** Whether ?1 (a visit instant) and ?6 (the visits stored at it) are later than the saved position. */
const LATER = '?1 IS NOT NULL AND (visit_at IS NULL OR ?1 > visit_at OR (?1 = visit_at AND ?6 > visit_at_count))';

/** Moves a mapping's history position on: inside the transaction that stores that history. */
export function savePositionSqlite(sqlite: Database, p: HistoryPosition): void {
  sqlite
    .query(
      // (visit_at, visit_at_count) only moves on: a later instant, or more visits at the same one.
      `UPDATE import_links SET
        visit_at = CASE WHEN ${LATER} THEN ?1 ELSE visit_at END,
        visit_at_count = CASE WHEN ${LATER} THEN ?6 ELSE visit_at_count END,
        day = coalesce(?2, day),
        total_set = coalesce(?3, total_set),
        source_counts = coalesce(?7, source_counts)
      WHERE identity = ?4 AND source_id = ?5`,
    )
    .run(
      p.visitAt ?? null,
      p.day ?? null,
      p.totalSet === undefined ? null : p.totalSet ? 1 : 0,
      p.identity,
      p.sourceId,
      p.visitAtCount ?? 1,
      p.sourceCounts === undefined ? null : JSON.stringify(p.sourceCounts),
    );
}
