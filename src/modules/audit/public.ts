/** The audit module's face: the entry a change carries, and how a store writes it in the change's transaction. */
export { type AuditEntry, type AuditTargetType, auditEntry, fieldsOf } from './entry';
export type { AuditRow } from './table';
export { insertAuditPostgres, insertAuditSqlite } from './write';
