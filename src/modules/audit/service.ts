/** Reading the audit log (GET /audit): filters, newest first, an opaque cursor. No HTTP here. */
import { invalid } from '../../lib/errors';
import { DAY_MS, parseInstant } from '../../lib/time';
import type { AuditDeps } from './deps';
import type { AuditEntryView, AuditQueryInput } from './model';
import type { AuditFilter } from './store';
import type { AuditRow } from './table';

/** The cursor: the last id shown, said so that it reads as this list's and nothing else's. */
const CURSOR = /^a([1-9]\d{0,14})$/;

function encodeCursor(id: number): string {
  return Buffer.from(`a${id}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const m = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!m) throw invalid('cursor', 'cursor is not a value returned by this endpoint');
  return Number(m[1]);
}

export function auditView(row: AuditRow): AuditEntryView {
  return {
    id: row.id,
    at: row.at,
    actor: { accountId: row.accountId, keyId: row.keyId },
    via: row.via,
    action: row.action,
    target: { type: row.targetType, id: row.targetId },
    fields: row.fields,
  };
}

/** The store's filter of a query; null when the actor named is no account (nothing can match). */
async function filterOf(deps: AuditDeps, query: AuditQueryInput): Promise<AuditFilter | null> {
  const filter: AuditFilter = {
    action: query.action,
    targetType: query.targetType,
    targetId: query.targetId,
  };
  if (query.from !== undefined) filter.from = parseInstant('from', query.from).time;
  if (query.to !== undefined) {
    const to = parseInstant('to', query.to);
    filter.to = to.isDate ? to.time + DAY_MS - 1 : to.time;
  }
  if (filter.from !== undefined && filter.to !== undefined && filter.from > filter.to)
    throw invalid('from', 'from must not be after to');
  if (query.actor !== undefined) {
    // An email names its account (friendlier to type); anything else is an account id.
    if (query.actor.includes('@')) {
      const account = await deps.stores.accounts.findByEmail(query.actor.trim());
      if (!account) return null;
      filter.accountId = account.id;
    } else filter.accountId = query.actor;
  }
  return filter;
}

export async function listAudit(
  deps: AuditDeps,
  query: AuditQueryInput,
): Promise<{ items: AuditEntryView[]; nextCursor: string | null; rows: AuditRow[] }> {
  const limit = query.limit ?? 50;
  const before = query.cursor === undefined ? null : decodeCursor(query.cursor);
  const filter = await filterOf(deps, query);
  if (filter === null) return { items: [], nextCursor: null, rows: [] };
  const found = await deps.stores.audit.page(filter, limit + 1, before);
  const rows = found.slice(0, limit);
  return {
    items: rows.map(auditView),
    nextCursor: found.length > limit ? encodeCursor(rows.at(-1)!.id) : null,
    rows,
  };
}

/** The dashboard's page: the API's, each entry with its actor's email and a link target's current slug. */
export async function listAuditNamed(deps: AuditDeps, query: AuditQueryInput) {
  const { items, nextCursor, rows } = await listAudit(deps, query);
  const linkIds = [...new Set(rows.filter((r) => r.targetType === 'link').map((r) => r.targetId))];
  const [accounts, links] = await Promise.all([deps.stores.accounts.list(), deps.stores.links.names(linkIds)]);
  const emails = new Map(accounts.map((a) => [a.id, a.email]));
  return {
    items: items.map((item) => ({
      ...item,
      email: item.actor.accountId === null ? null : (emails.get(item.actor.accountId) ?? null),
      slug: item.target.type === 'link' ? (links.get(item.target.id)?.slug ?? null) : null,
    })),
    nextCursor,
  };
}
