/** Analytics verbs: resolve the window, pick the scope, answer. No HTTP here. */
import type { Deps } from '../../deps';
import { lastClickId, retainedFrom } from '../clicks/public';
import { linkNamesOf } from '../links/repo';
import { getLinkRowOrThrow } from '../links/service';
import { firstBucketStart, linkDaysBefore, linkValueId, WORKSPACE } from '../rollups/public';
import { variantCodes, variantsByIds } from '../variants/repo';
import { type ClickSource, exportStream, listClicks } from './clicks';
import type { ClicksInput, Stats, WindowQuery, WorkspaceStats } from './model';
import { computeStats } from './stats';
import { type KnownVariant, linkVariantRows, type VariantLabel, workspaceVariantRows } from './variants';
import { hourAligned, resolveWindow } from './window';

const DEFAULT_CLICK_PAGE = 50;

/** A link's rollup scope is its value id: null when it was never clicked (nothing stored). */
function firstDayOf(deps: Deps, scope: number | null): number | null {
  return scope === null ? null : firstBucketStart(deps.db.$client, scope);
}

function statsOf<V>(
  deps: Deps,
  scope: number | null,
  variantRows: (known: KnownVariant[], counted: number) => V[],
  query: WindowQuery,
) {
  const sqlite = deps.db.$client;
  const window = resolveWindow(query, deps.clock.now(), () => firstDayOf(deps, scope));
  const daysBefore =
    scope === WORKSPACE ? Number.POSITIVE_INFINITY : scope === null ? 0 : linkDaysBefore(sqlite, scope);
  return computeStats(
    {
      sqlite,
      values: deps.rollupValues,
      scope,
      daysBefore,
      variantLabels: (ids) => variantLabels(deps, ids),
      variantRows,
    },
    hourAligned(window),
  );
}

/** The variants of these ids that exist, with their code and their link's current slug. */
function variantLabels(deps: Deps, ids: string[]): Map<string, VariantLabel> {
  const variants = variantsByIds(deps.db, ids);
  const links = linkNamesOf(deps.db, [...new Set([...variants.values()].map((v) => v.linkId))]);
  const labels = new Map<string, VariantLabel>();
  for (const [id, v] of variants) {
    const link = links.get(v.linkId);
    if (link !== undefined) labels.set(id, { ...v, slug: link.slug });
  }
  return labels;
}

export async function linkStats(deps: Deps, id: string, query: WindowQuery): Promise<Stats> {
  await getLinkRowOrThrow(deps, id);
  return statsOf(deps, linkValueId(deps.db.$client, id), linkVariantRows, query).stats;
}

export function workspaceStats(deps: Deps, query: WindowQuery): WorkspaceStats {
  const { stats, links } = statsOf(deps, WORKSPACE, workspaceVariantRows, query);
  const names = linkNamesOf(
    deps.db,
    links.map((l) => l.value!),
  );
  const topLinks = links.flatMap((l) => {
    const link = names.get(l.value!);
    return link === undefined ? [] : [{ id: l.value!, slug: link.slug, title: link.title, clicks: l.clicks }];
  });
  return { ...stats, topLinks };
}

async function clickSource(deps: Deps, id: string): Promise<ClickSource> {
  const link = await getLinkRowOrThrow(deps, id);
  return {
    sqlite: deps.db.$client,
    linkId: id,
    slug: link.slug,
    variantIds: new Set(variantCodes(deps.db, id).keys()),
  };
}

/** Raw clicks use the exact window (no widening to hours): they are not read from rollups. */
function rawWindow(deps: Deps, id: string, query: WindowQuery) {
  return resolveWindow(query, deps.clock.now(), () => firstDayOf(deps, linkValueId(deps.db.$client, id)));
}

/** The oldest instant raw clicks are kept from, or null when SLINK_RETENTION_DAYS is 0. */
function retained(deps: Deps): number | null {
  return retainedFrom(deps.clock.now(), deps.config.retentionDays);
}

export async function linkClicks(deps: Deps, id: string, query: ClicksInput) {
  const src = await clickSource(deps, id);
  const w = rawWindow(deps, id, query);
  return listClicks(src, w, query.limit ?? DEFAULT_CLICK_PAGE, query.cursor, retained(deps));
}

export async function linkExport(
  deps: Deps,
  id: string,
  query: WindowQuery,
): Promise<{ filename: string; body: ReadableStream<Uint8Array>; retainedFrom: number | null }> {
  const src = await clickSource(deps, id);
  const w = rawWindow(deps, id, query);
  const kept = retained(deps);
  const chunks = deps.exports.start({
    linkId: id,
    slug: src.slug,
    variantIds: [...src.variantIds],
    // Clicks before the retained window are not exported, whether or not they are deleted yet.
    from: kept === null ? w.from : Math.max(w.from, kept),
    to: w.to,
    bots: w.bots,
    // The snapshot: what is stored now, so the export is what existed when it was asked for.
    maxId: lastClickId(deps.db.$client),
  });
  return { filename: `${src.slug}-clicks.csv`, body: exportStream(chunks), retainedFrom: kept };
}
