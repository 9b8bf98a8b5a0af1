/**
 * Bulk verbs on a selection of links (ids, at most MAX_BULK_IDS): params, project, tags, status,
 * delete. Each is one request and one transaction for the whole selection, so a dashboard
 * selection never turns into one request per link. No HTTP here.
 */

import { invalid } from '../../lib/errors';
import { checkParams, PARAM_LIMITS } from '../../lib/params';
import { type Access, authorizePlace, sees } from '../access/public';
import { type AuditEntry, auditEntry } from '../audit/public';
import {
  checkProjectId,
  deleteLinks,
  humanClicksNow,
  LINK_LIMITS,
  type LinkRow,
  normalizeTags,
  updateLinks,
} from '../links/public';
import type { BulkDeps } from './deps';
import type { BulkDeleteResult, BulkParamsInput, BulkProjectInput, BulkStatusInput, BulkTagsInput } from './model';

/**
 * The links of these ids that exist and the caller sees, and the ids that name none (request
 * order, once each): a link outside the caller's limits is not found, as in GET /links/{id}.
 */
async function resolveIds(
  deps: BulkDeps,
  access: Access,
  ids: string[],
): Promise<{ rows: LinkRow[]; notFound: string[] }> {
  const unique = [...new Set(ids)];
  const found = await deps.stores.links.findMany(unique);
  const byId = new Map(found.flatMap((r) => (sees(access, r) ? [[r.id, r] as const] : [])));
  const rows = unique.flatMap((id) => byId.get(id) ?? []);
  return { rows, notFound: unique.filter((id) => !byId.has(id)) };
}

/** One audit entry per link a bulk verb changed, as PATCH /links/{id} would write it. */
function linkEntries(
  deps: BulkDeps,
  access: Access,
  action: 'link.update' | 'link.delete',
  ids: string[],
  fields: string[],
): AuditEntry[] {
  const at = deps.clock.now();
  return ids.map((id) => auditEntry(access, action, { type: 'link', id }, fields, at));
}

/** A changed link's updatedAt: now, never earlier than what it had (the clock may step back). */
function touchedAt(deps: BulkDeps, row: LinkRow): number {
  return Math.max(deps.clock.now(), row.updatedAt);
}

export async function bulkParams(
  deps: BulkDeps,
  access: Access,
  input: BulkParamsInput,
): Promise<{ updated: number; notFound: string[] }> {
  const params = checkParams(input.params);
  const replace = input.mode === 'replace';
  const { rows, notFound } = await resolveIds(deps, access, input.ids);
  // Every link is checked before any is written: one over the limit stops the whole request.
  const updates = rows.map((row) => {
    const next = replace ? params : { ...row.params, ...params };
    if (Object.keys(next).length > PARAM_LIMITS.maxKeys) {
      throw invalid('params', `Link ${row.id} would have more than ${PARAM_LIMITS.maxKeys} params`);
    }
    return { id: row.id, changes: { params: next, updatedAt: touchedAt(deps, row) } };
  });
  const ids = updates.map((u) => u.id);
  await updateLinks(deps, updates, linkEntries(deps, access, 'link.update', ids, ['params']));
  return { updated: updates.length, notFound };
}

export async function bulkProject(
  deps: BulkDeps,
  access: Access,
  input: BulkProjectInput,
): Promise<{ moved: number; unchanged: number; notFound: string[] }> {
  const projectId = await checkProjectId(deps, input.projectId);
  const { rows, notFound } = await resolveIds(deps, access, input.ids);
  // Moved only within the caller's limits (400 projectId, as one link's PATCH); nothing is written otherwise.
  for (const row of rows) authorizePlace(access, { projectId, domainId: row.domainId });
  const moves = rows
    .filter((r) => r.projectId !== projectId)
    .map((r) => ({ id: r.id, changes: { projectId, updatedAt: touchedAt(deps, r) } }));
  const ids = moves.map((m) => m.id);
  await updateLinks(deps, moves, linkEntries(deps, access, 'link.update', ids, ['projectId']));
  return { moved: moves.length, unchanged: rows.length - moves.length, notFound };
}

interface Changed {
  updated: number;
  unchanged: number;
  notFound: string[];
}

/** Adds and removes tags on every link; a link's other tags stay. */
export async function bulkTags(deps: BulkDeps, access: Access, input: BulkTagsInput): Promise<Changed> {
  const add = normalizeTags(input.add, 'add');
  const remove = normalizeTags(input.remove, 'remove');
  if (add.length === 0 && remove.length === 0) throw invalid('add', 'Send at least one tag to add or to remove');
  const both = add.find((tag) => remove.includes(tag));
  if (both !== undefined) throw invalid('remove', `The tag "${both}" cannot be both added and removed`);
  const { rows, notFound } = await resolveIds(deps, access, input.ids);
  const current = await deps.stores.links.tagsOf(rows.map((r) => r.id));
  // Every link is checked before any is written: one over the limit stops the whole request.
  const updates: { row: LinkRow; tags: string[] }[] = [];
  for (const row of rows) {
    const had = current.get(row.id) ?? [];
    const next = [...had.filter((tag) => !remove.includes(tag)), ...add.filter((tag) => !had.includes(tag))];
    if (next.length > LINK_LIMITS.tags) {
      throw invalid('add', `Link ${row.id} would have more than ${LINK_LIMITS.tags} tags`);
    }
    if (next.length !== had.length || next.some((tag) => !had.includes(tag))) updates.push({ row, tags: next });
  }
  await updateLinks(
    deps,
    updates.map(({ row, tags }) => ({ id: row.id, changes: { updatedAt: touchedAt(deps, row) }, tags })),
    linkEntries(
      deps,
      access,
      'link.update',
      updates.map((u) => u.row.id),
      ['tags'],
    ),
  );
  return { updated: updates.length, unchanged: rows.length - updates.length, notFound };
}

/** Sets one status on every link: pause, resume (active), archive, restore (active). */
export async function bulkStatus(deps: BulkDeps, access: Access, input: BulkStatusInput): Promise<Changed> {
  const { status } = input;
  const { rows, notFound } = await resolveIds(deps, access, input.ids);
  const changing = rows.filter((r) => r.status !== status);
  await updateLinks(
    deps,
    changing.map((row) => ({ id: row.id, changes: { status, updatedAt: touchedAt(deps, row) } })),
    linkEntries(
      deps,
      access,
      'link.update',
      changing.map((r) => r.id),
      ['status'],
    ),
  );
  return { updated: changing.length, unchanged: rows.length - changing.length, notFound };
}

/**
 * Deletes every selected link that has no human clicks, by the same rule as DELETE /links/{id}
 * (buffered clicks count); the others are kept and listed in `refused` with their clicks, so
 * the caller can say which and why. The deletable ones go in one transaction.
 */
export async function bulkDelete(deps: BulkDeps, access: Access, input: { ids: string[] }): Promise<BulkDeleteResult> {
  const { rows, notFound } = await resolveIds(deps, access, input.ids);
  const deleting: string[] = [];
  const refused: BulkDeleteResult['refused'] = [];
  for (const row of rows) {
    const clickCount = humanClicksNow(deps, row);
    if (clickCount > 0) refused.push({ id: row.id, slug: row.slug, clickCount });
    else deleting.push(row.id);
  }
  await deleteLinks(deps, deleting, linkEntries(deps, access, 'link.delete', deleting, []));
  return { deleted: deleting, refused, notFound };
}
