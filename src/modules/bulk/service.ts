/** Bulk verbs: many links from text, params or project for many links. No HTTP here. */
import type { Deps } from '../../deps';
import { invalid } from '../../lib/errors';
import { nextTurn } from '../../lib/event-loop';
import { checkParams, PARAM_LIMITS } from '../../lib/params';
import type { Link } from '../links/model';
import { findLinkRows, type LinkRow, slugTaken, toLinks } from '../links/repo';
import { checkProjectId, freshSlug, newLinkRow } from '../links/service';
import { insertLinks, setLinkParams, setLinkProjects, writeLinks } from '../links/writes';
import type { BulkLine, BulkParamsInput, BulkProjectInput, BulkTextInput } from './model';
import { BULK_CHUNK, countStatuses, markDuplicates, planBulk } from './plan';

export async function previewBulk(deps: Deps, input: BulkTextInput) {
  const { lines } = await planBulk(deps, input);
  return { lines, counts: countStatuses(lines) };
}

/**
 * Creates every `create` line in one transaction: all of them, or (on any failure) none. The
 * reading, checking and slug drawing happen before, and reading the answer back after, in
 * chunks with turns of the event loop between them; the transaction itself is synchronous and
 * short (10-25 ms for 200 lines): held open across an await, it would take in the writes of
 * whatever request ran meanwhile on the same connection. What may have changed during those
 * turns is checked again inside it.
 */
export async function createBulk(deps: Deps, input: BulkTextInput) {
  const plan = await planBulk(deps, input);
  const slugs = new Set<string>();
  const items: { line: BulkLine; row: LinkRow; tags: string[] }[] = [];
  for (const l of plan.lines) {
    if (l.status !== 'create') continue;
    if (items.length > 0 && items.length % BULK_CHUNK === 0) await nextTurn();
    const slug = freshSlug(deps, slugs);
    slugs.add(slug);
    const row = newLinkRow(deps, {
      slug,
      destination: l.destination!,
      title: l.title,
      params: l.params!,
      projectId: plan.projectId,
      expiresAt: null,
      clickLimit: null,
    });
    items.push({ line: l, row, tags: plan.tags });
  }
  const created = writeLinks(deps, (w) => {
    // The project may have been deleted, a link made to a destination, or (very unlikely) a
    // drawn slug taken while other requests ran.
    checkProjectId(deps, plan.projectId);
    if (plan.skipDuplicates) markDuplicates(deps, plan.lines);
    const writing = items.filter((item) => item.line.status === 'create');
    for (const item of writing) {
      if (slugTaken(deps.db, item.row.slug)) item.row.slug = freshSlug(deps, slugs);
      slugs.add(item.row.slug);
    }
    insertLinks(w, writing);
    return writing;
  });
  // The answer is read back (tags, variants, project names) a chunk at a time too.
  const links: Link[] = [];
  for (let i = 0; i < created.length; i += BULK_CHUNK * 2) {
    await nextTurn();
    const rows = created.slice(i, i + BULK_CHUNK * 2).map((item) => item.row);
    links.push(...toLinks(deps.db, deps.config.shortHost, rows));
  }
  const { create, ...skips } = countStatuses(plan.lines);
  return {
    created: created.map((item, i) => ({ line: item.line.line, link: links[i]! })),
    skipped: plan.lines.filter((l) => l.status !== 'create'),
    counts: { created: create, ...skips },
  };
}

/** The links of these ids that exist, and the ids that name none (request order, once each). */
function resolveIds(deps: Deps, ids: string[]): { rows: LinkRow[]; notFound: string[] } {
  const unique = [...new Set(ids)];
  const rows = findLinkRows(deps.db, unique);
  const found = new Set(rows.map((r) => r.id));
  return { rows, notFound: unique.filter((id) => !found.has(id)) };
}

export function bulkParams(deps: Deps, input: BulkParamsInput): { updated: number; notFound: string[] } {
  const params = checkParams(input.params);
  const replace = input.mode === 'replace';
  const { rows, notFound } = resolveIds(deps, input.ids);
  const now = deps.clock.now();
  // Every link is checked before any is written: one over the limit stops the whole request.
  const updates = rows.map((row) => {
    const next = replace ? params : { ...row.params, ...params };
    if (Object.keys(next).length > PARAM_LIMITS.maxKeys) {
      throw invalid('params', `Link ${row.id} would have more than ${PARAM_LIMITS.maxKeys} params`);
    }
    return { id: row.id, params: next, updatedAt: Math.max(now, row.updatedAt) };
  });
  writeLinks(deps, (w) => setLinkParams(w, updates));
  return { updated: updates.length, notFound };
}

export function bulkProject(
  deps: Deps,
  input: BulkProjectInput,
): { moved: number; unchanged: number; notFound: string[] } {
  const projectId = checkProjectId(deps, input.projectId);
  const { rows, notFound } = resolveIds(deps, input.ids);
  const now = deps.clock.now();
  const moves = rows
    .filter((r) => r.projectId !== projectId)
    .map((r) => ({ id: r.id, updatedAt: Math.max(now, r.updatedAt) }));
  writeLinks(deps, (w) => setLinkProjects(w, moves, projectId));
  return { moved: moves.length, unchanged: rows.length - moves.length, notFound };
}
