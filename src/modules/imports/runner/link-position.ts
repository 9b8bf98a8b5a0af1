/**
 * Where a link's history stands, and what of it a run is still to store: the visits after the
 * newest its mapping says are stored (past those stored at that very instant), the days after
 * the newest day stored, and only times a click can have. Each write names the position it
 * moves the link to, saved by the writer in the transaction that stores what it follows, so a
 * run stopped at any instant is resumed without a visit lost or stored twice.
 */
import type { HistoryPosition } from '../history';
import type { ImportSource, SourceLink, SourceVisit } from '../source';
import type { ImportLinkRow } from '../store';
import type { RunPlan } from './plan';

export const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

/**
 * A visit's time a click can have: from 1970 to a day past now (the old service's clock may run
 * a little ahead). Any other (none given, before 1970, in years to come) is not imported.
 */
export const clickTime = (at: number, now: number) => Number.isFinite(at) && at >= 0 && at <= now + 86_400_000;

/** A source's day (YYYY-MM-DD) clicks can have been counted on: none after tomorrow's (UTC). */
export const clickDay = (day: string, now: number) => day <= dayOf(now + 86_400_000);

/** The position a write moves a link's history to, given what it moves on. */
export type PositionAt = (moved: Omit<HistoryPosition, 'identity' | 'sourceId'>) => HistoryPosition;

/** A link's positions as this run's writes save them. */
export const positionAt =
  (plan: RunPlan, link: SourceLink): PositionAt =>
  (moved) => ({
    identity: plan.identity,
    sourceId: link.sourceId,
    runId: plan.id,
    ...moved,
  });

/** The daily counts a link with visits has besides them (SourceLink.daysToo), after the newest day stored. */
export async function daysToo(
  source: ImportSource,
  link: SourceLink,
  mapping: ImportLinkRow,
  signal: AbortSignal,
  now: number,
) {
  if (link.daysToo !== true || !source.days) return [];
  const days = await source.days(link, mapping.day, signal);
  return days.filter((d) => (mapping.day === null || d.day > mapping.day) && clickDay(d.day, now));
}

/**
 * Whether a visit is one a run stores, read in order from the newest instant stored: after it,
 * or at it past the visits stored at it (a position saved with no count skips every one there).
 */
export function freshOf(mapping: ImportLinkRow): (v: SourceVisit) => boolean {
  const from = mapping.visitAt;
  let skip = mapping.visitAtCount === 0 ? Number.POSITIVE_INFINITY : mapping.visitAtCount;
  return (v) => {
    if (from !== null && !(v.at >= from)) return false;
    if (v.at === from && skip > 0) {
      skip--;
      return false;
    }
    return true;
  };
}
