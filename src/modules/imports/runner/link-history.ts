/**
 * One link's history, read from the source and handed to the HistoryWriter from where its
 * mapping says the last run stopped, by what the source has of it: its visits (as they are, or
 * counted per UTC day when the import asks for daily history), its daily counts, or its total.
 */
import type { ImportDeps } from '../deps';
import type { SourceLink, SourceVisit } from '../source';
import type { ImportLinkRow } from '../store';
import { takeCountedOnly } from './counted-only';
import { clickDay, clickTime, dayOf, daysToo, freshOf, positionAt } from './link-position';
import type { RunPlan } from './plan';

/**
 * A link's history, from where its mapping says the last run stopped: visits after the newest
 * stored, days after the newest stored, the total (or another Slink's counts beyond its visits
 * and days) once. Returns the clicks stored.
 */
export async function importHistory(deps: ImportDeps, plan: RunPlan, link: SourceLink, mapping: ImportLinkRow) {
  const writer = deps.history!;
  const { source } = plan;
  // Each position is saved by the writer in the transaction that stores what it follows.
  const at = positionAt(plan, link);
  let stored = 0;
  const kind = link.history;
  if (kind === 'visits' && source.visits) {
    // Another Slink's counts beyond the visits and days: added before them (counted-only.ts).
    const { stored: counted, once } = await takeCountedOnly(deps, plan, link, mapping, at);
    stored += counted;
    if (plan.history === 'daily') {
      // Visits counted per UTC day, from the day after the newest stored.
      const after = mapping.day === null ? null : Date.parse(`${mapping.day}T23:59:59.999Z`);
      const counts = new Map<string, number>();
      const now = deps.clock.now();
      for await (const batch of source.visits(link, after, plan.signal))
        for (const v of batch) if (clickTime(v.at, now)) counts.set(dayOf(v.at), (counts.get(dayOf(v.at)) ?? 0) + 1);
      for (const d of await daysToo(source, link, mapping, plan.signal, deps.clock.now()))
        counts.set(d.day, (counts.get(d.day) ?? 0) + d.clicks);
      const days = [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, clicks]) => ({ day, clicks }));
      if (days.length > 0)
        stored += await writer.days(mapping.linkId, source.name, days, at({ day: days.at(-1)!.day, ...once }));
      return stored;
    }
    // Read again from the newest instant stored, skipping the visits stored at it: a source's
    // times are often to the second, and more may have come in that second since. A position
    // saved with no count (before counts were kept) skips every visit at its instant.
    const from = mapping.visitAt;
    const isFresh = freshOf(mapping);
    let newest = mapping.visitAt;
    let atNewest = mapping.visitAtCount;
    const now = deps.clock.now();
    for await (const batch of source.visits(link, from === null ? null : from - 1, plan.signal)) {
      const fresh: SourceVisit[] = [];
      for (const v of batch) {
        if (!clickTime(v.at, now) || !isFresh(v)) continue;
        fresh.push(v);
        if (newest === null || v.at > newest) {
          newest = v.at;
          atNewest = 1;
        } else if (v.at === newest) atNewest++;
      }
      if (fresh.length === 0 || newest === null) continue;
      stored += await writer.visits(
        mapping.linkId,
        source.name,
        fresh,
        at({ visitAt: newest, visitAtCount: atNewest, ...once }),
      );
    }
    // Its daily counts besides (another Slink's imported ones), from their own position.
    const days = await daysToo(source, link, mapping, plan.signal, deps.clock.now());
    if (days.length > 0)
      stored += await writer.days(mapping.linkId, source.name, days, at({ day: days.at(-1)!.day, ...once }));
    return stored;
  }
  if (kind === 'daily' && source.days) {
    const now = deps.clock.now();
    const days = (await source.days(link, mapping.day, plan.signal)).filter(
      (d) => (mapping.day === null || d.day > (mapping.day as string)) && clickDay(d.day, now),
    );
    if (days.length > 0) stored += await writer.days(mapping.linkId, source.name, days, at({ day: days.at(-1)!.day }));
    return stored;
  }
  if (kind === 'total' && link.totalClicks !== null) {
    // A count no link holds (negative, a fraction, past 2^53: a CSV may say anything) is not
    // stored by the writer, so not counted as imported either.
    if (mapping.totalSet || !Number.isSafeInteger(link.totalClicks) || link.totalClicks < 0) return 0;
    await writer.total(mapping.linkId, source.name, link.totalClicks, at({ totalSet: true }));
    return link.totalClicks;
  }
  return stored;
}
