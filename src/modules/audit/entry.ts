/**
 * An audit entry as a change's transaction writes it: made by the service that knows who
 * (Access), what and which fields, handed to the store with the change, and written by the
 * store in the same transaction (write.ts).
 */
import type { Access } from '../access/public';
import type { AuditRow } from './table';

/** What an entry may be about (a tag change is a link.update with fields ["tags"]: tags are not rows). */
export const AUDIT_TARGET_TYPES = [
  'link',
  'variant',
  'project',
  'tag',
  'domain',
  'webhook',
  'key',
  'session',
  'account',
  'invite',
] as const;

export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/** A row before the database gives it its id. */
export type AuditEntry = Omit<AuditRow, 'id'>;

export function auditEntry(
  access: Access,
  action: string,
  target: { type: AuditTargetType; id: string },
  fields: readonly string[],
  at: number,
): AuditEntry {
  return {
    at,
    accountId: access.accountId,
    keyId: access.keyId,
    via: access.via,
    action,
    targetType: target.type,
    targetId: target.id,
    fields: [...fields],
  };
}

/** The fields of an update's input that were given (a PATCH body's keys), in a stable order. */
export function fieldsOf(input: object): string[] {
  return Object.entries(input)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k)
    .sort();
}

/** The same entry for each of these targets (a bulk change: one entry per link it changed). */
export function entriesFor(entry: AuditEntry, targetIds: readonly string[]): AuditEntry[] {
  return targetIds.map((targetId) => ({ ...entry, targetId, fields: [...entry.fields] }));
}
