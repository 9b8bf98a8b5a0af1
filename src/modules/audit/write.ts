/**
 * Writing an audit entry inside the change's transaction, one way per engine. On SQLite it is
 * one more insert in the same (synchronous) transaction. On PostgreSQL it is a statement for the
 * same batch: pass it beside the change's statement to Promise.all inside the transaction (Bun's
 * SQL pipelines statements issued together on one connection: no extra round trip), or use
 * auditCte to make the change and its entry one statement.
 */
import type { Db } from '../../db/client';
import type { Pg } from '../../db/postgres/client';
import type { AuditEntry } from './entry';
import { auditLog } from './table';

export function insertAuditSqlite(db: Db, entry: AuditEntry | null | undefined): void {
  if (entry) db.insert(auditLog).values(entry).run();
}

export function insertAuditPostgres(sql: Pg, entry: AuditEntry | null | undefined): Promise<unknown> {
  if (!entry) return Promise.resolve();
  return sql`INSERT INTO audit_log (at, account_id, key_id, via, action, target_type, target_id, fields)
    VALUES (${entry.at}, ${entry.accountId}, ${entry.keyId}, ${entry.via}, ${entry.action}, ${entry.targetType},
      ${entry.targetId}, ${JSON.stringify(entry.fields)})`;
}
