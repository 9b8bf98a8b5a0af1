/**
 * Link verbs. Plain functions of (deps, access, input); they throw AppError, never HTTP. Who is
 * asking (access/) bounds what they read and change: a link outside the caller's projects or
 * domains is not found, a link made or moved there is 400, lists and counts leave it out.
 */

import { isForeignKeyViolation, isUniqueViolation } from '../../db/storage';
import { AppError, conflict, invalid, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { checkParams } from '../../lib/params';
import { hasControlChars } from '../../lib/text';
import { type Access, authorize, authorizePlace, requireSees, linkFilter as visibleTo } from '../access/public';
import { auditEntry, fieldsOf } from '../audit/public';
import { hashPassword } from '../auth/public';
import { decodeCursor, encodeCursor } from './cursor';
import type { LinksDeps } from './deps';
import { domainGoneError, domainOfHost, seenDomainOfHost } from './domain';
import { toLinks } from './links';
import {
  type CreateLinkInput,
  DEFAULT_REDIRECT_STATUS,
  LINK_LIMITS,
  type Link,
  type LinkFilterInput,
  type ListLinksInput,
  type UpdateLinkInput,
} from './model';
import { normalizeFallbackUrl, normalizeLinkDestination, type SlinkHosts, slinkHostsOf } from './own-host';
import { normalizePreview, normalizeRules, type Rule } from './rules';
import { checkCustomSlug, generateSlug } from './slug';
import type { LinkFields, LinkFilter, LinkRow } from './store';
import { deleteLinks, insertLinks, updateLinks } from './writer';

/** A stored change's fields as the API names them (the audit log's `fields`). */
const API_FIELD: Partial<Record<keyof LinkFields, string>> = { domainId: 'domain', passwordHash: 'password' };

export function changedFields(changes: Partial<LinkFields>, tags: boolean): string[] {
  const names = Object.keys(changes)
    .filter((k) => k !== 'updatedAt')
    .map((k) => API_FIELD[k as keyof LinkFields] ?? k);
  if (tags) names.push('tags');
  return names.sort();
}

const DEFAULT_PAGE_SIZE = 50;

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

export async function checkProjectId(deps: LinksDeps, projectId: string | null | undefined): Promise<string | null> {
  if (projectId === undefined || projectId === null) return null;
  if (!(await deps.stores.projects.find(projectId))) throw unknownProject(projectId);
  return projectId;
}

/** The answer to a projectId that names no project (also when it was deleted during a write). */
export function unknownProject(projectId: string | null): AppError {
  return invalid('projectId', `No project with id ${projectId}`);
}

/**
 * A generated slug that is free on the domain in the database and not in `reserved` (slugs about
 * to be taken there).
 */
export async function freshSlug(deps: LinksDeps, domainId: number, reserved?: ReadonlySet<string>): Promise<string> {
  for (;;) {
    const slug = generateSlug();
    if (!reserved?.has(slug) && !(await deps.stores.links.slugTaken(domainId, slug))) return slug;
  }
}

/** The row of a new link from checked fields: active, no clicks yet. */
export function newLinkRow(
  deps: Pick<LinksDeps, 'clock'>,
  fields: Pick<
    LinkRow,
    'slug' | 'domainId' | 'destination' | 'title' | 'params' | 'projectId' | 'expiresAt' | 'clickLimit'
  > &
    Partial<Pick<LinkRow, 'fallbackUrl' | 'redirectStatus' | 'forwardQuery' | 'passwordHash' | 'rules' | 'preview'>>,
): LinkRow {
  const now = deps.clock.now();
  return {
    id: newId('lnk'),
    fallbackUrl: null,
    redirectStatus: DEFAULT_REDIRECT_STATUS,
    forwardQuery: false,
    passwordHash: null,
    rules: null,
    preview: null,
    ...fields,
    status: 'active',
    clickCount: 0,
    uniqueCount: 0,
    botCount: 0,
    lastClickedAt: null,
    fallbackCount: 0,
    createdAt: now,
    updatedAt: now,
  };
}

export async function getLinkOrThrow(deps: LinksDeps, access: Access, id: string): Promise<Link> {
  return (await toLinks(deps, [await getLinkRowOrThrow(deps, access, id)]))[0]!;
}

/** The link of this id, or 404 not_found when there is none or the caller may not see it: the same answer. */
export async function getLinkRowOrThrow(deps: Pick<LinksDeps, 'stores'>, access: Access, id: string): Promise<LinkRow> {
  const row = await deps.stores.links.find(id);
  if (!row) throw notFound('link');
  requireSees(access, row);
  return row;
}

/**
 * The domain of a new link: the one named, or the default one. A key limited to domains that
 * names none gets the default domain when it may place links there, else its only domain; with
 * several (none the default) it must name one (400 domain).
 */
export function domainForNew(
  deps: Pick<LinksDeps, 'domains'>,
  access: Access,
  given: string | undefined,
  field = 'domain',
) {
  if (given !== undefined) return domainOfHost(deps.domains, given, field);
  const fallback = deps.domains.default;
  const allowed = access.domains;
  if (allowed === null || allowed.includes(fallback.id)) return fallback;
  const only = allowed.length === 1 ? deps.domains.byId(allowed[0]!) : undefined;
  if (only !== undefined) return only;
  throw invalid(field, 'This key is limited to domains: name one of them as domain');
}

const slugTaken = (slug: string | undefined) => conflict('slug', `The slug "${slug}" is already taken`);

/**
 * A write's own failure said as the API says it: a slug taken between the check and the write
 * (unique violation), a domain or a project deleted meanwhile (foreign key). Anything else is thrown as it is.
 */
async function written(write: Promise<void>, slug: string | undefined, projectId: string | null | undefined) {
  try {
    await write;
  } catch (err) {
    if (isUniqueViolation(err)) throw slugTaken(slug);
    throw domainGoneError(err) ?? (isForeignKeyViolation(err) ? unknownProject(projectId ?? null) : err);
  }
}

/** A link password's stored form: argon2id like account passwords, or null for none. */
async function linkPasswordHash(password: string | null): Promise<string | null> {
  if (password === null) return null;
  if (hasControlChars(password)) throw invalid('password', 'password contains control characters');
  return hashPassword(password);
}

/** Rules as stored: null when there are none (older links have none either). */
function storedRules(rules: readonly Rule[], hosts: SlinkHosts) {
  const normalized = normalizeRules(rules, hosts);
  return normalized.length === 0 ? null : normalized;
}

/** Creates a link. Destination utm_ values win over the same keys in `params`. */
export async function createLink(deps: LinksDeps, access: Access, input: CreateLinkInput): Promise<Link> {
  if (input.slug !== undefined) authorize(access, 'link.slug');
  const domain = domainForNew(deps, access, input.domain);
  // Where it goes is checked before anything is looked up: the same 400 whatever exists.
  authorizePlace(access, { projectId: input.projectId ?? null, domainId: domain.id });
  const { destination, utm } = normalizeLinkDestination(input.destination, slinkHostsOf(deps));
  const params = checkParams({ ...input.params, ...utm });
  const tags = normalizeTags(input.tags);
  const title = normalizeTitle(input.title);
  const projectId = await checkProjectId(deps, input.projectId);
  let slug: string;
  if (input.slug !== undefined) {
    slug = checkCustomSlug(input.slug);
    if (await deps.stores.links.slugTaken(domain.id, slug)) throw slugTaken(slug);
  } else {
    slug = await freshSlug(deps, domain.id);
  }
  const row = newLinkRow(deps, {
    slug,
    domainId: domain.id,
    destination,
    title,
    params,
    projectId,
    expiresAt: input.expiresAt ?? null,
    clickLimit: input.clickLimit ?? null,
    fallbackUrl: normalizeFallbackUrl(input.fallbackUrl ?? null, slinkHostsOf(deps)),
    redirectStatus: input.redirectStatus ?? DEFAULT_REDIRECT_STATUS,
    forwardQuery: input.forwardQuery ?? false,
    passwordHash: await linkPasswordHash(input.password ?? null),
    rules: storedRules(input.rules ?? [], slinkHostsOf(deps)),
    preview: normalizePreview(input.preview ?? null),
  });
  const audit = auditEntry(access, 'link.create', { type: 'link', id: row.id }, fieldsOf(input), row.createdAt);
  await written(insertLinks(deps, [{ row, tags }], audit), slug, projectId);
  return getLinkOrThrow(deps, access, row.id);
}

/**
 * Changes only the fields sent. A new destination's utm_ values are lifted into params (over
 * the params sent, or the current ones). Renaming the slug or moving the link to another domain
 * needs a superuser: either changes the address people were given, and the old one stops
 * answering (a rename of what others share, not an edit of where it leads).
 */
export async function updateLink(deps: LinksDeps, access: Access, id: string, input: UpdateLinkInput): Promise<Link> {
  const current = await getLinkRowOrThrow(deps, access, id);
  const changes: Partial<LinkFields> = {};
  if (input.domain !== undefined) {
    const domain = domainOfHost(deps.domains, input.domain);
    if (domain.id !== current.domainId) {
      authorize(access, 'link.slug');
      changes.domainId = domain.id;
    }
  }
  if (input.slug !== undefined && input.slug !== current.slug) {
    authorize(access, 'link.slug');
    changes.slug = checkCustomSlug(input.slug);
  }
  // A move to another project or domain must stay within the caller's limits (400, as a create).
  const projectMoves = input.projectId !== undefined && input.projectId !== current.projectId;
  if (projectMoves || changes.domainId !== undefined) {
    authorizePlace(access, {
      projectId: projectMoves ? (input.projectId ?? null) : current.projectId,
      domainId: changes.domainId ?? current.domainId,
    });
  }
  // The address it will have must be free: a new slug, a new domain, or both.
  if (changes.slug !== undefined || changes.domainId !== undefined) {
    const slug = changes.slug ?? current.slug;
    if (await deps.stores.links.slugTaken(changes.domainId ?? current.domainId, slug)) throw slugTaken(slug);
  }
  let params = input.params;
  if (input.destination !== undefined) {
    const { destination, utm } = normalizeLinkDestination(input.destination, slinkHostsOf(deps));
    changes.destination = destination;
    if (Object.keys(utm).length) params = { ...(params ?? current.params), ...utm };
  }
  if (params !== undefined) changes.params = checkParams(params);
  if (input.title !== undefined) changes.title = normalizeTitle(input.title);
  const tags = input.tags !== undefined ? normalizeTags(input.tags) : undefined;
  if (input.projectId !== undefined) changes.projectId = await checkProjectId(deps, input.projectId);
  if (input.expiresAt !== undefined) changes.expiresAt = input.expiresAt;
  if (input.clickLimit !== undefined) changes.clickLimit = input.clickLimit;
  if (input.fallbackUrl !== undefined)
    changes.fallbackUrl = normalizeFallbackUrl(input.fallbackUrl, slinkHostsOf(deps));
  if (input.redirectStatus !== undefined) changes.redirectStatus = input.redirectStatus;
  if (input.forwardQuery !== undefined) changes.forwardQuery = input.forwardQuery;
  if (input.rules !== undefined) changes.rules = storedRules(input.rules, slinkHostsOf(deps));
  if (input.preview !== undefined) changes.preview = normalizePreview(input.preview);
  if (input.password !== undefined) changes.passwordHash = await linkPasswordHash(input.password);
  if (input.status !== undefined) changes.status = input.status;
  if (Object.keys(changes).length > 0 || tags !== undefined)
    changes.updatedAt = Math.max(deps.clock.now(), current.updatedAt);
  const fields = changedFields(changes, tags !== undefined);
  const audit =
    fields.length > 0 ? auditEntry(access, 'link.update', { type: 'link', id }, fields, deps.clock.now()) : null;
  await written(updateLinks(deps, [{ id, changes, tags }], audit), changes.slug ?? current.slug, changes.projectId);
  return getLinkOrThrow(deps, access, id);
}

/**
 * A link's human clicks, stored or still buffered: the buffered ones are classified now, so a
 * human click redirected a moment ago counts exactly like a stored one.
 */
export function humanClicksNow(deps: LinksDeps, row: LinkRow): number {
  deps.linkIndex.settle(row.id);
  return Math.max(row.clickCount, deps.linkIndex.humanClicksOf(row.id) ?? 0);
}

/**
 * Deletes a link that has no recorded human clicks (history is only destroyed in the
 * dashboard). Clicks still in the buffer count: they are classified now, so a human click
 * redirected a moment ago blocks the delete exactly like a stored one. `withClicks` (the
 * dashboard's deleteLinkWithClicks) deletes it anyway, its clicks and statistics with it.
 */
export async function deleteLink(
  deps: LinksDeps,
  access: Access,
  id: string,
  withClicks = false,
): Promise<{ id: string; deleted: true }> {
  const row = await getLinkRowOrThrow(deps, access, id);
  const humans = humanClicksNow(deps, row);
  if (humans > 0 && !withClicks) {
    throw new AppError(
      'delete_requires_dashboard',
      `This link has ${humans} recorded clicks: archive it (PATCH status=archived) or delete it in the dashboard`,
    );
  }
  await deleteLinks(deps, [id], auditEntry(access, 'link.delete', { type: 'link', id }, [], deps.clock.now()));
  return { id, deleted: true };
}

export async function listLinks(
  deps: LinksDeps,
  access: Access,
  input: ListLinksInput,
): Promise<{ items: Link[]; cursor: string | null }> {
  const sort = input.sort ?? 'created';
  const limit = input.limit ?? DEFAULT_PAGE_SIZE;
  const after = input.cursor ? decodeCursor(sort, input.cursor) : null;
  // One instant for the filter and the fields: a page never shows a link its filter left out.
  const now = deps.clock.now();
  const page = await deps.stores.links.page(linkFilter(deps, access, input, now), sort, limit, after);
  return {
    // Only what toLinks reads: spreading deps would open its lazy members (the rollup dictionary).
    items: await toLinks(
      { stores: deps.stores, config: deps.config, domains: deps.domains, clock: { now: () => now } },
      page.rows,
    ),
    cursor: page.more && page.last ? encodeCursor(sort, page.last) : null,
  };
}

/** How many links GET /links would list with these filters, over all its pages. */
export async function countLinks(deps: LinksDeps, access: Access, input: LinkFilterInput): Promise<{ count: number }> {
  return { count: await deps.stores.links.count(linkFilter(deps, access, input, deps.clock.now())) };
}

/**
 * The store's filter of a query: its domain host made the domain's id, and the caller's limits
 * (none for an unlimited caller: its query is exactly the one it always was). With a single
 * domain, every link is on it: no condition at all, so the list reads exactly as it does unfiltered.
 */
function linkFilter(deps: Pick<LinksDeps, 'domains'>, access: Access, input: LinkFilterInput, now: number): LinkFilter {
  const { domain, ...rest } = input;
  const visible = visibleTo(access);
  const filter: LinkFilter = visible === null ? { ...rest, now } : { ...rest, now, visible };
  if (domain === undefined) return filter;
  const { id } = seenDomainOfHost(deps.domains, access, domain);
  return deps.domains.size === 1 ? filter : { ...filter, domainId: id };
}

export async function listTagCounts(
  deps: LinksDeps,
  access: Access,
): Promise<{ tags: { tag: string; count: number }[] }> {
  return { tags: await deps.stores.links.tagCounts(visibleTo(access)) };
}
