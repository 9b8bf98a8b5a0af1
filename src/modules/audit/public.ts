/** The audit module's face: the entry a change carries, and how a store writes it in the change's transaction. */
export { type AuditEntry, type AuditTargetType, auditEntry, entriesFor, fieldsOf } from './entry';
export type { AuditRow } from './table';
export { type Audited, auditCtePostgres, entriesOf, insertAuditPostgres, insertAuditSqlite } from './write';
