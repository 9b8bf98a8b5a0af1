/**
 * Another Slink's counts of a link beyond the visits and days its export carries (countedOnly),
 * added once, before the visits and days. The first time, as the export says; on a later export,
 * what its own counts of the link grew by since the last taken that the visits and days stored
 * now do not hold (clicks its retention removed meanwhile), never what this Slink holds already.
 * Taken before the visits (and their positions) are written: a run stopped in between finds the
 * new counts taken and the visits still to store, so none is counted twice.
 */

import type { ImportDeps } from '../deps';
import type { HistoryPosition } from '../history';
import { type CountedOnly, type ImportSource, type SourceLink, type SourceVisit, withCounts } from '../source';
import type { ImportLinkRow } from '../store';
import { clickTime, daysToo, freshOf, type PositionAt } from './link-position';
import type { RunPlan } from './plan';

/** Says the source's counts were taken: saved with a write's position. */
export type Taken = Pick<HistoryPosition, 'totalSet' | 'sourceCounts'>;

/** The visits and days a run is to store for a link, counted by kind (a pass of its own over them). */
async function freshCounts(
  source: ImportSource,
  link: SourceLink,
  mapping: ImportLinkRow,
  signal: AbortSignal,
  now: number,
) {
  const isFresh = freshOf(mapping);
  const visits: SourceVisit[] = [];
  const from = mapping.visitAt === null ? null : mapping.visitAt - 1;
  for await (const batch of source.visits!(link, from, signal))
    for (const v of batch) if (clickTime(v.at, now) && isFresh(v)) visits.push(v);
  return withCounts({ clicks: 0, uniques: 0, bots: 0 }, visits, await daysToo(source, link, mapping, signal, now));
}

/** What the source's counts grew by since `before` that `fresh` does not hold, by kind (never below 0). */
function grownBy(now: CountedOnly, before: CountedOnly, fresh: CountedOnly): CountedOnly {
  const grown = (k: keyof CountedOnly) => Math.max(0, now[k] - before[k] - fresh[k]);
  return { clicks: grown('clicks'), uniques: grown('uniques'), bots: grown('bots') };
}

/**
 * Adds a link's counts beyond its visits and days, if any are due, with the position saying they
 * were taken. Returns the clicks stored, and `once`: with nothing to add, what the first position
 * the visits or days save is to carry, so it says they were taken all the same.
 */
export async function takeCountedOnly(
  deps: ImportDeps,
  plan: RunPlan,
  link: SourceLink,
  mapping: ImportLinkRow,
  at: PositionAt,
): Promise<{ stored: number; once: Taken }> {
  const rest = link.countedOnly;
  if (rest == null) return { stored: 0, once: {} };
  const { source } = plan;
  // Per visit by kind: a daily import stores them as days, so only the first counts then.
  const counts = plan.history === 'daily' ? undefined : (link.sourceCounts ?? undefined);
  const taken = { totalSet: true as const, ...(counts === undefined ? {} : { sourceCounts: counts }) };
  const add = !mapping.totalSet
    ? rest
    : mapping.sourceCounts !== null && counts !== undefined
      ? grownBy(counts, mapping.sourceCounts, await freshCounts(source, link, mapping, plan.signal, deps.clock.now()))
      : null;
  if (add !== null && add.clicks + add.uniques + add.bots > 0)
    return { stored: await deps.history!.countedOnly(mapping.linkId, source.name, add, at(taken)), once: {} };
  return { stored: 0, once: !mapping.totalSet || counts !== undefined ? taken : {} };
}
