/**
 * Writing audit entries inside the change's transaction, one way per engine. On SQLite it is one
 * more statement in the same (synchronous) transaction. On PostgreSQL it is a statement for the
 * same batch: pass it beside the change's statement to Promise.all inside the transaction (Bun's
 * SQL pipelines statements issued together on one connection: no extra round trip), or put
 * `auditCtePostgres` in a WITH of the change's own statement (one statement in all).
 * Every form writes a whole batch (a bulk change's entries) as one multi-row insert.
 */
import type { Database } from 'bun:sqlite';
import type { Pg, PgFragment } from '../../db/postgres/client';
import type { AuditEntry } from './entry';

/** What a store is handed: nothing (an unaudited write), one entry, or a batch's. */
export type Audited = AuditEntry | readonly AuditEntry[] | null | undefined;

export function entriesOf(audit: Audited): readonly AuditEntry[] {
  if (!audit) return [];
  return Array.isArray(audit) ? audit : [audit as AuditEntry];
}

/** The entries as one JSON text: SQLite reads them back with json_each in one statement. */
const SQLITE_INSERT = `INSERT INTO audit_log (at, account_id, key_id, via, action, target_type, target_id, fields)
  SELECT e.value ->> 0, e.value ->> 1, e.value ->> 2, e.value ->> 3, e.value ->> 4, e.value ->> 5, e.value ->> 6,
    e.value ->> 7
  FROM json_each(?) e`;

/**
 * `db`: the drizzle database or its bun:sqlite connection, whichever the store holds (named by
 * shape: db/client.ts reaches the tables, this module among them, through the schema).
 */
export function insertAuditSqlite(db: Database | { $client: Database }, audit: Audited): void {
  const entries = entriesOf(audit);
  if (entries.length === 0) return;
  const rows = entries.map((e) => [
    e.at,
    e.accountId,
    e.keyId,
    e.via,
    e.action,
    e.targetType,
    e.targetId,
    JSON.stringify(e.fields),
  ]);
  const sqlite = '$client' in db ? db.$client : db;
  sqlite.query(SQLITE_INSERT).run(JSON.stringify(rows));
}

/**
 * The insert of the entries as a statement fragment. `when`, a condition of the enclosing
 * statement (e.g. `EXISTS (SELECT 1 FROM changed)`), writes them only where the change happened.
 */
export function auditCtePostgres(sql: Pg, audit: Audited, when?: PgFragment): PgFragment {
  const entries = entriesOf(audit);
  const col = <T>(pick: (e: AuditEntry) => T) => entries.map(pick);
  return sql`INSERT INTO audit_log (at, account_id, key_id, via, action, target_type, target_id, fields)
    SELECT * FROM unnest(${sql.array(
      col((e) => e.at),
      'int8',
    )}::int8[], ${sql.array(
      col((e) => e.accountId),
      'text',
    )}::text[], ${sql.array(
      col((e) => e.keyId),
      'text',
    )}::text[], ${sql.array(
      col((e) => e.via),
      'text',
    )}::text[], ${sql.array(
      col((e) => e.action),
      'text',
    )}::text[], ${sql.array(
      col((e) => e.targetType),
      'text',
    )}::text[], ${sql.array(
      col((e) => e.targetId),
      'text',
    )}::text[], ${sql.array(
      col((e) => JSON.stringify(e.fields)),
      'text',
    )}::text[]) ${when ? sql`WHERE ${when}` : sql``}`;
}

/** Issue beside the change's statement inside its transaction (Promise.all): pipelined, no round trip of its own. */
export function insertAuditPostgres(sql: Pg, audit: Audited): Promise<unknown> {
  if (entriesOf(audit).length === 0) return Promise.resolve();
  return auditCtePostgres(sql, audit) as unknown as Promise<unknown>;
}
