/**
 * The one way to write redirect facts (links, their tags and variants): every function here
 * writes through the store's LinkWrites, then refreshes the slug index for the links it
 * touched before it resolves, so the index cannot be left stale and a client that sees its
 * write answered sees its redirect changed. A write that failed refreshes nothing.
 * test/architecture/link-writes.test.ts holds that nothing else reaches `stores.linkWrites`.
 * The click writer's additions to the counters are not redirect facts and do not come here.
 * `audit`, when given, is written by the store in the write's own transaction (modules/audit).
 */
import { shortUrlOf } from '../../lib/short-url';
import type { AlsoInTx } from '../../lib/write-tx';
import type { LinkFilter } from '../access/public';
import type { AuditEntry, Audited } from '../audit/public';
import type { VariantRow } from '../variants/public';
import type { LinksDeps } from './deps';
import { hostOfDomain } from './domain';
import { fillLinkEvents } from './event-data';
import type { LinkFields, NewLink } from './store';

type WriterDeps = LinksDeps;

/**
 * After a write committed: the slug index refreshed, the events it recorded given their Links
 * (not a deletion's: its data is known at the write) and the webhook sender woken to deliver them.
 */
async function written(deps: WriterDeps, ids: readonly string[], fill = true): Promise<void> {
  // Side by side: neither reads what the other writes.
  await Promise.all([deps.linkIndex.refreshMany([...ids]), fill ? fillLinkEvents(deps, ids) : undefined]);
  deps.webhooks.wake();
}

export async function insertLinks(deps: WriterDeps, items: NewLink[], audit?: Audited): Promise<void> {
  await deps.stores.linkWrites.insert(items, deps.clock.now(), audit);
  await written(
    deps,
    items.map((i) => i.row.id),
  );
}

/** Inserts with the re-checks of a bulk create (store.ts LinkWrites.insertBulk); refreshes the links written. */
export async function insertBulkLinks(
  deps: WriterDeps,
  items: NewLink[],
  options: { skipExisting: boolean; freshSlug: () => string; visible?: LinkFilter | null; also?: AlsoInTx<NewLink> },
  audit?: AuditEntry | null,
) {
  const inserted = await deps.stores.linkWrites.insertBulk(items, options, deps.clock.now(), audit);
  await written(
    deps,
    inserted.inserted.map((i) => i.row.id),
  );
  return inserted;
}

/** Changes the fields given of each link; `tags`, when given, replace its tags. */
export async function updateLinks(
  deps: WriterDeps,
  updates: { id: string; changes: Partial<LinkFields>; tags?: string[] }[],
  audit?: Audited,
): Promise<void> {
  if (updates.length === 0) return;
  await deps.stores.linkWrites.update(updates, deps.clock.now(), audit);
  await written(
    deps,
    updates.map((u) => u.id),
  );
}

/**
 * Deletes links with their clicks and statistics (store.ts says how); they stop redirecting at
 * once. Their events carry the slug and short URL, read first: nothing of them is left after.
 */
export async function deleteLinks(deps: WriterDeps, ids: string[], audit?: Audited): Promise<void> {
  if (ids.length === 0) return;
  const rows = await deps.stores.links.findMany(ids);
  const deleted = rows.map((r) => ({
    id: r.id,
    slug: r.slug,
    shortUrl: shortUrlOf(deps.domains.originOf(r.domainId), r.slug),
    domain: hostOfDomain(deps.domains, r.domainId),
    projectId: r.projectId,
  }));
  await deps.stores.linkWrites.delete(deleted, deps.clock.now(), audit);
  await written(deps, ids, false);
}

export async function insertVariant(deps: WriterDeps, row: VariantRow, audit?: Audited): Promise<void> {
  await deps.stores.linkWrites.insertVariant(row, deps.clock.now(), audit);
  await written(deps, [row.linkId]);
}

export async function updateVariant(
  deps: WriterDeps,
  linkId: string,
  id: string,
  changes: Partial<VariantRow>,
  audit?: Audited,
): Promise<void> {
  await deps.stores.linkWrites.updateVariant(linkId, id, changes, deps.clock.now(), audit);
  await written(deps, [linkId]);
}

export async function deleteVariant(deps: WriterDeps, linkId: string, id: string, audit?: Audited): Promise<void> {
  await deps.stores.linkWrites.deleteVariant(linkId, id, deps.clock.now(), audit);
  await written(deps, [linkId]);
}

/** After a project's deletion unfiled these links (projects/store.ts deleteUnfiling, which recorded their events). */
export async function linksUnfiled(deps: WriterDeps, ids: string[]): Promise<void> {
  await written(deps, ids);
}
