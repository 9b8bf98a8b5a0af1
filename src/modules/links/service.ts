/** Link verbs. Plain functions of (deps, actor, input); they throw AppError, never HTTP. */
import type { Deps } from '../../deps';
import { AppError, conflict, invalid, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { checkParams } from '../../lib/params';
import { hasControlChars } from '../../lib/text';
import { findProject } from '../projects/repo';
import { decodeCursor, encodeCursor } from './cursor';
import { countLinkRows, listLinkPage } from './listing';
import {
  type CreateLinkInput,
  LINK_LIMITS,
  type Link,
  type LinkFilterInput,
  type ListLinksInput,
  type UpdateLinkInput,
} from './model';
import { normalizeLinkDestination, slinkHostsOf } from './own-host';
import type { LinkRow } from './repo';
import * as repo from './repo';
import { checkCustomSlug, generateSlug } from './slug';
import type { LinkFields } from './table';
import { deleteLinkRow, insertLinks, updateLinkRow, writeLinks } from './writes';

/** Who is acting: only superusers may choose or change slugs. */
interface Actor {
  superuser: boolean;
}

const DEFAULT_PAGE_SIZE = 50;

function requireSuperuser(actor: Actor, what: string): void {
  if (!actor.superuser) throw new AppError('superuser_required', `Only a superuser key may ${what}`, 'slug');
}

export function normalizeTitle(title: string | null | undefined): string | null {
  if (title === undefined || title === null) return null;
  const trimmed = title.trim();
  if (hasControlChars(trimmed)) throw invalid('title', 'title contains control characters');
  // The API schema bounds it too; bulk titles come from text and only meet this check.
  if (trimmed.length > LINK_LIMITS.titleLength)
    throw invalid('title', `title is longer than ${LINK_LIMITS.titleLength} characters`);
  return trimmed === '' ? null : trimmed;
}

/** Trimmed, non-empty, repeats dropped (first spelling kept). `field` names the input in errors. */
export function normalizeTags(tags: string[] | undefined, field = 'tags'): string[] {
  const out: string[] = [];
  for (const raw of tags ?? []) {
    const tag = raw.trim();
    if (tag === '' || tag.length > LINK_LIMITS.tagLength) {
      throw invalid(field, `Each tag is 1 to ${LINK_LIMITS.tagLength} characters`);
    }
    if (hasControlChars(tag)) throw invalid(field, 'Tags must not contain control characters');
    if (!out.includes(tag)) out.push(tag);
  }
  return out;
}

export function checkProjectId(deps: Deps, projectId: string | null | undefined): string | null {
  if (projectId === undefined || projectId === null) return null;
  if (!findProject(deps.db, projectId)) throw invalid('projectId', `No project with id ${projectId}`);
  return projectId;
}

/** A generated slug that is free in the database and not in `reserved` (slugs about to be taken). */
export function freshSlug(deps: Deps, reserved?: ReadonlySet<string>): string {
  for (;;) {
    const slug = generateSlug();
    if (!reserved?.has(slug) && !repo.slugTaken(deps.db, slug)) return slug;
  }
}

/** The row of a new link from checked fields: active, no clicks yet. */
export function newLinkRow(
  deps: Deps,
  fields: Pick<LinkRow, 'slug' | 'destination' | 'title' | 'params' | 'projectId' | 'expiresAt' | 'clickLimit'>,
): LinkRow {
  const now = deps.clock.now();
  return {
    id: newId('lnk'),
    ...fields,
    status: 'active',
    clickCount: 0,
    uniqueCount: 0,
    botCount: 0,
    lastClickedAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

function isUniqueViolation(err: unknown): boolean {
  return err instanceof Error && /UNIQUE constraint failed/.test(err.message);
}

export function getLinkOrThrow(deps: Deps, id: string): Link {
  const row = repo.findLinkRow(deps.db, id);
  if (!row) throw notFound('link');
  return repo.toLinks(deps.db, deps.config.shortHost, [row], deps.clock.now())[0]!;
}

export function getLinkRowOrThrow(deps: Deps, id: string): LinkRow {
  const row = repo.findLinkRow(deps.db, id);
  if (!row) throw notFound('link');
  return row;
}

/** Creates a link. Destination utm_ values win over the same keys in `params`. */
export function createLink(deps: Deps, actor: Actor, input: CreateLinkInput): Link {
  if (input.slug !== undefined) requireSuperuser(actor, 'choose a custom slug');
  const { destination, utm } = normalizeLinkDestination(input.destination, slinkHostsOf(deps.config));
  const params = checkParams({ ...input.params, ...utm });
  const tags = normalizeTags(input.tags);
  const title = normalizeTitle(input.title);
  const projectId = checkProjectId(deps, input.projectId);
  let slug: string;
  if (input.slug !== undefined) {
    slug = checkCustomSlug(input.slug);
    if (repo.slugTaken(deps.db, slug)) throw conflict('slug', `The slug "${slug}" is already taken`);
  } else {
    slug = freshSlug(deps);
  }
  const row = newLinkRow(deps, {
    slug,
    destination,
    title,
    params,
    projectId,
    expiresAt: input.expiresAt ?? null,
    clickLimit: input.clickLimit ?? null,
  });
  try {
    writeLinks(deps, (w) => insertLinks(w, [{ row, tags }]));
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('slug', `The slug "${slug}" is already taken`);
    throw err;
  }
  return getLinkOrThrow(deps, row.id);
}

/**
 * Changes only the fields sent. A new destination's utm_ values are lifted into params (over
 * the params sent, or the current ones). Renaming the slug needs a superuser.
 */
export function updateLink(deps: Deps, actor: Actor, id: string, input: UpdateLinkInput): Link {
  const current = getLinkRowOrThrow(deps, id);
  const changes: Partial<LinkFields> = {};
  if (input.slug !== undefined && input.slug !== current.slug) {
    requireSuperuser(actor, 'rename a slug');
    changes.slug = checkCustomSlug(input.slug);
    if (repo.slugTaken(deps.db, changes.slug)) throw conflict('slug', `The slug "${changes.slug}" is already taken`);
  }
  let params = input.params;
  if (input.destination !== undefined) {
    const { destination, utm } = normalizeLinkDestination(input.destination, slinkHostsOf(deps.config));
    changes.destination = destination;
    if (Object.keys(utm).length) params = { ...(params ?? current.params), ...utm };
  }
  if (params !== undefined) changes.params = checkParams(params);
  if (input.title !== undefined) changes.title = normalizeTitle(input.title);
  const tags = input.tags !== undefined ? normalizeTags(input.tags) : undefined;
  if (input.projectId !== undefined) changes.projectId = checkProjectId(deps, input.projectId);
  if (input.expiresAt !== undefined) changes.expiresAt = input.expiresAt;
  if (input.clickLimit !== undefined) changes.clickLimit = input.clickLimit;
  if (input.status !== undefined) changes.status = input.status;
  if (Object.keys(changes).length > 0 || tags !== undefined)
    changes.updatedAt = Math.max(deps.clock.now(), current.updatedAt);
  try {
    writeLinks(deps, (w) => updateLinkRow(w, id, changes, tags));
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('slug', `The slug "${changes.slug}" is already taken`);
    throw err;
  }
  return getLinkOrThrow(deps, id);
}

/**
 * A link's human clicks, stored or still buffered: the buffered ones are classified now, so a
 * human click redirected a moment ago counts exactly like a stored one.
 */
export function humanClicksNow(deps: Deps, row: LinkRow): number {
  deps.linkIndex.settle(row.id);
  return Math.max(row.clickCount, deps.linkIndex.humanClicksOf(row.id) ?? 0);
}

/**
 * Deletes a link that has no recorded human clicks (history is only destroyed in the
 * dashboard). Clicks still in the buffer count: they are classified now, so a human click
 * redirected a moment ago blocks the delete exactly like a stored one. `withClicks` (the
 * dashboard's deleteLinkWithClicks) deletes it anyway, its clicks and statistics with it.
 */
export function deleteLink(deps: Deps, id: string, withClicks = false): { id: string; deleted: true } {
  const row = getLinkRowOrThrow(deps, id);
  const humans = humanClicksNow(deps, row);
  if (humans > 0 && !withClicks) {
    throw new AppError(
      'delete_requires_dashboard',
      `This link has ${humans} recorded clicks: archive it (PATCH status=archived) or delete it in the dashboard`,
    );
  }
  writeLinks(deps, (w) => deleteLinkRow(w, id));
  return { id, deleted: true };
}

export function listLinks(deps: Deps, input: ListLinksInput): { items: Link[]; cursor: string | null } {
  const sort = input.sort ?? 'created';
  const limit = input.limit ?? DEFAULT_PAGE_SIZE;
  const after = input.cursor ? decodeCursor(sort, input.cursor) : null;
  // One instant for the filter and the fields: a page never shows a link its filter left out.
  const now = deps.clock.now();
  const page = listLinkPage(deps.db, { ...input, now }, sort, limit, after);
  return {
    items: repo.toLinks(deps.db, deps.config.shortHost, page.rows, now),
    cursor: page.more && page.last ? encodeCursor(sort, page.last) : null,
  };
}

/** How many links GET /links would list with these filters, over all its pages. */
export function countLinks(deps: Deps, input: LinkFilterInput): { count: number } {
  return { count: countLinkRows(deps.db, { ...input, now: deps.clock.now() }) };
}

export function listTagCounts(deps: Deps): { tags: { tag: string; count: number }[] } {
  return { tags: repo.countTags(deps.db) };
}
