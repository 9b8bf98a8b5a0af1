/** The audit log's reads and pruning on PostgreSQL. */
import { type Pg, type PgFragment, storable } from '../../../db/postgres/client';
import { type AuditFilter, type AuditStore, auditRowOf, type StoredEntry } from '../store';

export function createPostgresAuditStore(sql: Pg): AuditStore {
  return {
    async page(filter: AuditFilter, limit, beforeId) {
      const texts = [filter.accountId, filter.action, filter.targetType, filter.targetId];
      // A text holding NUL is never stored (client.ts, storable): it matches nothing.
      if (texts.some((text) => text !== undefined && !storable(text))) return [];
      let where: PgFragment = sql`TRUE`;
      if (filter.accountId !== undefined) where = sql`${where} AND account_id = ${filter.accountId}`;
      if (filter.action !== undefined) where = sql`${where} AND action = ${filter.action}`;
      if (filter.targetType !== undefined) where = sql`${where} AND target_type = ${filter.targetType}`;
      if (filter.targetId !== undefined) where = sql`${where} AND target_id = ${filter.targetId}`;
      if (filter.from !== undefined) where = sql`${where} AND at >= ${filter.from}::int8`;
      if (filter.to !== undefined) where = sql`${where} AND at <= ${filter.to}::int8`;
      if (beforeId !== null) where = sql`${where} AND id < ${beforeId}::int8`;
      const rows = await sql<StoredEntry[]>`SELECT * FROM audit_log WHERE ${where} ORDER BY id DESC LIMIT ${limit}`;
      return rows.map(auditRowOf);
    },
    async pruneStep(cutoff, rows) {
      // SKIP LOCKED: a node pruning at the same time takes other rows, never waits for these.
      const deleted = await sql`DELETE FROM audit_log WHERE id = ANY (ARRAY(
          SELECT id FROM audit_log WHERE at < ${cutoff}::int8 ORDER BY at LIMIT ${rows} FOR UPDATE SKIP LOCKED))
        RETURNING 1`;
      return deleted.length;
    },
  };
}
