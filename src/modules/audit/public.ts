/** The audit module's face: the entry a change carries, how a store writes it in the change's transaction, and the log's store. */
export { AUDIT_TARGET_TYPES, type AuditEntry, type AuditTargetType, auditEntry, entriesFor, fieldsOf } from './entry';
export { AUDIT_KEPT_DAYS } from './model';
export { createPostgresAuditStore } from './postgres/store';
export { AuditPruner } from './prune';
export { createSqliteAuditStore } from './sqlite/store';
export type { AuditStore } from './store';
export type { AuditRow } from './table';
export { type Audited, auditCtePostgres, entriesOf, insertAuditPostgres, insertAuditSqlite } from './write';
