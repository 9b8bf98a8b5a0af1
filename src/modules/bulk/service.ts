/** Bulk create: many links from text (preview and create). No HTTP here; verbs on a selection are in actions.ts. */
import type { Deps } from '../../deps';
import { nextTurn } from '../../lib/event-loop';
import type { Link } from '../links/model';
import { type LinkRow, slugTaken, toLinks } from '../links/repo';
import { checkProjectId, freshSlug, newLinkRow } from '../links/service';
import { insertLinks, writeLinks } from '../links/writes';
import type { BulkLine, BulkTextInput } from './model';
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
    links.push(...toLinks(deps.db, deps.config.shortHost, rows, deps.clock.now()));
  }
  const { create, ...skips } = countStatuses(plan.lines);
  return {
    created: created.map((item, i) => ({ line: item.line.line, link: links[i]! })),
    skipped: plan.lines.filter((l) => l.status !== 'create'),
    counts: { created: create, ...skips },
  };
}
