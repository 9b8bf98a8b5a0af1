/** Bulk create: many links from text (preview and create). No HTTP here; verbs on a selection are in actions.ts. */

import { isForeignKeyViolation } from '../../db/storage';
import { nextTurn } from '../../lib/event-loop';
import type { Access } from '../access/public';
import { auditEntry, fieldsOf } from '../audit/public';
import {
  domainGoneError,
  generateSlug,
  insertBulkLinks,
  type Link,
  type LinkRow,
  newLinkRow,
  toLinks,
  unknownProject,
} from '../links/public';
import type { BulkDeps } from './deps';
import type { BulkLine, BulkTextInput } from './model';
import { BULK_CHUNK, countStatuses, markExisting, planBulk } from './plan';

export async function previewBulk(deps: BulkDeps, access: Access, input: BulkTextInput) {
  const { lines } = await planBulk(deps, access, input);
  return { lines, counts: countStatuses(lines) };
}

/**
 * Creates every `create` line in one transaction: all of them, or (on any failure) none. The
 * reading, checking and slug drawing happen before, and reading the answer back after, in
 * chunks with turns of the event loop between them; the write itself is one short transaction
 * that checks again what may have changed during those turns (store.ts LinkWrites.insertBulk):
 * a link made meanwhile to a line's destination, a slug taken meanwhile (astronomically rare
 * for 7 random characters: it is drawn again), a project deleted meanwhile (400 projectId).
 */
export async function createBulk(deps: BulkDeps, access: Access, input: BulkTextInput) {
  const plan = await planBulk(deps, access, input);
  const slugs = new Set<string>();
  const drawSlug = (): string => {
    for (;;) {
      const slug = generateSlug();
      if (!slugs.has(slug)) {
        slugs.add(slug);
        return slug;
      }
    }
  };
  const items: { line: BulkLine; row: LinkRow; tags: string[] }[] = [];
  for (const l of plan.lines) {
    if (l.status !== 'create') continue;
    if (items.length > 0 && items.length % BULK_CHUNK === 0) await nextTurn();
    const row = newLinkRow(deps, {
      slug: drawSlug(),
      domainId: plan.domainId,
      destination: l.destination!,
      title: l.title,
      params: l.params!,
      projectId: plan.projectId,
      expiresAt: null,
      clickLimit: null,
    });
    items.push({ line: l, row, tags: plan.tags });
  }
  let written: Awaited<ReturnType<typeof insertBulkLinks>>;
  try {
    // The entry of each link written (the store sets its id): what a line sets, as POST /links names it.
    const fields = fieldsOf({
      destination: true,
      params: true,
      title: true,
      tags: plan.tags.length > 0 || undefined,
      projectId: plan.projectId ?? undefined,
    });
    const audit = auditEntry(access, 'link.create', { type: 'link', id: '' }, fields, deps.clock.now());
    written = await insertBulkLinks(
      deps,
      items,
      { skipExisting: plan.skipDuplicates, freshSlug: drawSlug, visible: plan.visible },
      audit,
    );
  } catch (err) {
    throw domainGoneError(err) ?? (isForeignKeyViolation(err) ? unknownProject(plan.projectId) : err);
  }
  for (const item of items) {
    const linkId = written.existing.get(item.row.destination);
    if (linkId !== undefined) markExisting(item.line, linkId);
  }
  const created = items.filter((item) => item.line.status === 'create');
  // The answer is read back (tags, variants, project names) a chunk at a time too.
  const links: Link[] = [];
  for (let i = 0; i < created.length; i += BULK_CHUNK * 2) {
    await nextTurn();
    const rows = created.slice(i, i + BULK_CHUNK * 2).map((item) => item.row);
    links.push(...(await toLinks(deps, rows)));
  }
  const { create, ...skips } = countStatuses(plan.lines);
  return {
    created: created.map((item, i) => ({ line: item.line.line, link: links[i]! })),
    skipped: plan.lines.filter((l) => l.status !== 'create'),
    counts: { created: create, ...skips },
  };
}
