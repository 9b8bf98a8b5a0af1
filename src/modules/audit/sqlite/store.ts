/** The audit log's reads and pruning on SQLite. */
import type { Database } from 'bun:sqlite';
import { type AuditFilter, type AuditStore, auditRowOf, type StoredEntry } from '../store';

export function createSqliteAuditStore(sqlite: Database): AuditStore {
  return {
    async page(filter: AuditFilter, limit, beforeId) {
      const where: string[] = [];
      const args: (string | number)[] = [];
      const add = (condition: string, value: string | number | undefined) => {
        if (value === undefined) return;
        where.push(condition);
        args.push(value);
      };
      add('account_id = ?', filter.accountId);
      add('action = ?', filter.action);
      add('target_type = ?', filter.targetType);
      add('target_id = ?', filter.targetId);
      add('at >= ?', filter.from);
      add('at <= ?', filter.to);
      add('id < ?', beforeId ?? undefined);
      const sql = `SELECT * FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY id DESC LIMIT ?`;
      return sqlite
        .query<StoredEntry, (string | number)[]>(sql)
        .all(...args, limit)
        .map(auditRowOf);
    },
    async pruneStep(cutoff, rows) {
      return sqlite
        .query('DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ? ORDER BY at LIMIT ?)')
        .run(cutoff, rows).changes;
    },
  };
}
