/** Analytics verbs: resolve the window, pick the scope, answer. No HTTP here. */

import { type Access, linkFilter } from '../access/public';
import { retainedFrom } from '../clicks/public';
import { getLinkRowOrThrow, hostOfDomain, seenDomainOfHost } from '../links/public';
import { WORKSPACE } from '../rollups/public';
import { type ClickSource, exportStream, listClicks } from './clicks';
import type { AnalyticsDeps } from './deps';
import { LINKS_SCOPE, linksScopes } from './domain-stats';
import type { ClicksInput, Stats, WindowQuery, WorkspaceStats, WorkspaceStatsInput } from './model';
import { computeStats, notCollectedOf } from './stats';
import { compareText, top } from './top';
import { type KnownVariant, linkVariantRows, type VariantLabel, workspaceVariantRows } from './variants';
import { hourAligned, resolveWindow, type Window } from './window';

const DEFAULT_CLICK_PAGE = 50;

/** A link's rollup scope is its value id: null when it was never clicked (nothing stored). */
async function firstDayOf(deps: AnalyticsDeps, scope: number | null): Promise<number | null> {
  return scope === null ? null : deps.stores.analytics.firstDay(scope);
}

/** The window of the query; `range=all` starts at the scope's first day (read only then). */
async function windowOf(deps: AnalyticsDeps, scope: number | null, query: WindowQuery): Promise<Window> {
  const first = query.range === 'all' && query.from === undefined ? await firstDayOf(deps, scope) : null;
  return resolveWindow(query, deps.clock.now(), () => first);
}

async function statsOf<V>(
  deps: AnalyticsDeps,
  scope: number | null,
  variantRows: (known: KnownVariant[], counted: number) => V[],
  query: WindowQuery,
) {
  const store = deps.stores.analytics;
  const window = await windowOf(deps, scope, query);
  const daysBefore =
    scope === WORKSPACE ? Number.POSITIVE_INFINITY : scope === null ? 0 : await store.daysBefore(scope);
  return computeStats(
    {
      store,
      scope,
      daysBefore,
      variantLabels: (ids) => variantLabels(deps, ids),
      variantRows,
      notCollected: notCollectedOf(deps.config.privacy),
    },
    hourAligned(window),
  );
}

/** The variants of these ids that exist, with their code and their link's current slug. */
async function variantLabels(deps: AnalyticsDeps, ids: string[]): Promise<Map<string, VariantLabel>> {
  const labels = new Map<string, VariantLabel>();
  if (ids.length === 0) return labels;
  const variants = await deps.stores.variants.byIds(ids);
  const links = await deps.stores.links.names([...new Set([...variants.values()].map((v) => v.linkId))]);
  for (const [id, v] of variants) {
    const link = links.get(v.linkId);
    if (link !== undefined) labels.set(id, { ...v, slug: link.slug });
  }
  return labels;
}

export async function linkStats(deps: AnalyticsDeps, access: Access, id: string, query: WindowQuery): Promise<Stats> {
  await getLinkRowOrThrow(deps, access, id);
  const scope = await deps.stores.analytics.linkScope(id);
  return (await statsOf(deps, scope, linkVariantRows, query)).stats;
}

/**
 * The workspace's statistics, or one domain's: with a single domain every link is on it, and
 * its statistics are the workspace's, read as they are. A caller limited to projects or domains
 * gets the statistics of the links it sees (on the domain, when one is asked for): theirs summed.
 */
export async function workspaceStats(
  deps: AnalyticsDeps,
  access: Access,
  query: WorkspaceStatsInput,
): Promise<WorkspaceStats> {
  const { domain, ...window } = query;
  const domainId = domain === undefined ? null : seenDomainOfHost(deps.domains, access, domain).id;
  const visible = linkFilter(access);
  if (visible !== null) {
    const onDomain = domainId !== null && deps.domains.size > 1 ? domainId : null;
    return linksStats(deps, await deps.stores.links.idsWithin(visible, onDomain), window);
  }
  if (domainId !== null && deps.domains.size > 1) {
    return linksStats(deps, await deps.stores.links.idsWithin(null, domainId), window);
  }
  const { stats, links } = await statsOf(deps, WORKSPACE, workspaceVariantRows, window);
  return { ...stats, topLinks: await topLinksOf(deps, links) };
}

/** topLinks from (link id, clicks) entries, most clicks first: the links that still exist, named now. */
async function topLinksOf(deps: AnalyticsDeps, links: { value: string | null; clicks: number }[]) {
  const names = links.length === 0 ? new Map() : await deps.stores.links.names(links.map((l) => l.value!));
  return links.flatMap((l) => {
    const link = names.get(l.value!);
    return link === undefined ? [] : [{ id: l.value!, slug: link.slug, title: link.title, clicks: l.clicks }];
  });
}

/**
 * The statistics of a set of links now (those on one domain, or those a limited caller sees):
 * their scopes summed (domain-stats.ts).
 */
async function linksStats(deps: AnalyticsDeps, ids: string[], query: WindowQuery): Promise<WorkspaceStats> {
  const store = deps.stores.analytics;
  const scopeOf = ids.length === 0 ? new Map<string, number>() : await store.linkScopes(ids);
  const linkOf = new Map([...scopeOf].map(([link, scope]) => [scope, link]));
  const marks = linkOf.size === 0 ? new Map<number, number>() : await store.daysBeforeOf([...linkOf.keys()]);
  const domain = linksScopes(store, marks);
  // No link of the set was ever clicked: nothing stored to read (like a link's null scope).
  const scope = marks.size === 0 ? null : LINKS_SCOPE;
  const first =
    query.range === 'all' && query.from === undefined && scope !== null ? await domain.store.firstDay(scope) : null;
  const window = resolveWindow(query, deps.clock.now(), () => first);
  const { stats } = await computeStats(
    {
      store: domain.store,
      scope,
      daysBefore: Number.POSITIVE_INFINITY,
      variantLabels: (variantIds) => variantLabels(deps, variantIds),
      variantRows: workspaceVariantRows,
      notCollected: notCollectedOf(deps.config.privacy),
    },
    hourAligned(window),
  );
  const counted = [...domain.counted].flatMap(([s, clicks]) => (clicks > 0 ? [{ value: linkOf.get(s)!, clicks }] : []));
  const links = top(counted, (a, b) => compareText(a.value, b.value));
  return { ...stats, topLinks: await topLinksOf(deps, links) };
}

async function clickSource(deps: AnalyticsDeps, access: Access, id: string): Promise<ClickSource> {
  const link = await getLinkRowOrThrow(deps, access, id);
  return {
    store: deps.stores.analytics,
    linkId: id,
    slug: link.slug,
    domain: hostOfDomain(deps.domains, link.domainId),
    variantIds: new Set((await deps.stores.variants.codes(id)).keys()),
  };
}

/** Raw clicks use the exact window (no widening to hours): they are not read from rollups. */
async function rawWindow(deps: AnalyticsDeps, id: string, query: WindowQuery): Promise<Window> {
  const needsFirst = query.range === 'all' && query.from === undefined;
  return windowOf(deps, needsFirst ? await deps.stores.analytics.linkScope(id) : null, query);
}

/** The oldest instant raw clicks are kept from, or null when SLINK_RETENTION_DAYS is 0. */
function retained(deps: AnalyticsDeps): number | null {
  return retainedFrom(deps.clock.now(), deps.config.retentionDays);
}

export async function linkClicks(deps: AnalyticsDeps, access: Access, id: string, query: ClicksInput) {
  const src = await clickSource(deps, access, id);
  const w = await rawWindow(deps, id, query);
  return listClicks(src, w, query.limit ?? DEFAULT_CLICK_PAGE, query.cursor, retained(deps));
}

export async function linkExport(
  deps: AnalyticsDeps,
  access: Access,
  id: string,
  query: WindowQuery,
): Promise<{ filename: string; body: ReadableStream<Uint8Array>; retainedFrom: number | null }> {
  const src = await clickSource(deps, access, id);
  const w = await rawWindow(deps, id, query);
  const kept = retained(deps);
  const chunks = deps.exports.start({
    linkId: id,
    slug: src.slug,
    domain: src.domain,
    variantIds: [...src.variantIds],
    // Clicks before the retained window are not exported, whether or not they are deleted yet.
    from: kept === null ? w.from : Math.max(w.from, kept),
    to: w.to,
    bots: w.bots,
    // The snapshot: what is stored now, so the export is what existed when it was asked for.
    maxId: await deps.stores.analytics.lastClickId(),
  });
  return { filename: `${src.slug}-clicks.csv`, body: exportStream(chunks), retainedFrom: kept };
}
