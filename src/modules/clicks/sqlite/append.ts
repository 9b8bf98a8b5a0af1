/**
 * The write side of clicks: prepared bun:sqlite statements (measured ~10x faster than
 * row-by-row drizzle on this path). One call of the ClickAppender is one transaction that
 * appends a batch's raw clicks, each flagged first-of-day or not, and the batch's `clicks`
 * events when anybody takes them (webhooks/public.ts): what the rollups and counters need is
 * returned, for the caller to sum until the next fold (rollups/fold.ts). Its only other write is
 * a new breakdown value's id, so the sums can refer to it.
 */
import type { Database } from 'bun:sqlite';
import { prepareLinkCounters } from '../../links/public';
import { type RollupValues, valueIdsOf } from '../../rollups/public';
import { clickEventsWantedSqlite, recordClickEventsSqlite } from '../../webhooks/public';
import { sqliteDomainHosts } from '../domain-hosts';
import type { EnrichedClick } from '../enrich/enrich';
import type { SeenVisitors } from './seen-visitors';
import { TailAppender } from './tail-append';

/** A written click and what the fold counts of it. */
export interface AppendedClick {
  id: number;
  click: EnrichedClick;
  firstOfDay: boolean;
  /** Its breakdown value ids and its link's. */
  ids: number[];
  linkValue: number;
}

export interface AppendOutcome {
  written: number;
  skipped: number;
  /** The id of the last click written (0 when none was). */
  lastId: number;
  appended: AppendedClick[];
  /** `clicks` events recorded with the batch (0 when nobody takes them). */
  events: number;
}

/**
 * A batch of imported history (sqlite/imports.ts): it records no `clicks` events (they happened
 * elsewhere, long ago), and `inside` runs last in its transaction (the queue rows it came from
 * deleted with the clicks they became).
 */
export interface ImportedBatch {
  inside: () => void;
}

/** `at`: the time the batch is written (its events'). */
export type ClickAppender = (clicks: EnrichedClick[], at: number, imported?: ImportedBatch) => AppendOutcome;

/**
 * `seen` decides first visits; it is told whether the transaction committed. `values` learns
 * the ids the transaction inserted, and forgets them when it rolls back.
 */
export function createClickAppender(sqlite: Database, values: RollupValues, seen: SeenVisitors): ClickAppender {
  const linkCounters = prepareLinkCounters(sqlite);
  const hostsOf = sqliteDomainHosts(sqlite);
  const tail = new TailAppender(sqlite, values);

  const append = sqlite.transaction((clicks: EnrichedClick[], at: number, imported?: ImportedBatch): AppendOutcome => {
    const linkIds = clicks.map((c) => c.linkId);
    const slugs =
      imported === undefined && clickEventsWantedSqlite(sqlite, at) ? linkCounters.existingWithSlugs(linkIds) : null;
    const exists = slugs ?? linkCounters.existing(linkIds);
    const appended: AppendedClick[] = [];
    let lastId = 0;
    for (const c of clicks) {
      // The link was deleted after the click (only possible with no human clicks, or from
      // the dashboard, which deletes the history on purpose): nothing to attach it to.
      if (!exists.has(c.linkId)) continue;
      // Uniques are human visitors: a bot hit is never a first visit.
      // An opted-out click adds no visitor: it has none; nor does an imported one (hash ''), unless
      // its source recorded it as a first visit.
      const firstOfDay =
        !c.bot &&
        !c.optedOut &&
        (c.visitorHash === '' ? c.firstVisit === true : seen.firstVisit(c.day, c.linkId, c.visitorHash));
      // The breakdown ids once per click: the raw row stores the first eight, the sums count all.
      const ids = valueIdsOf(values, c);
      const linkValue = values.idOf('link', '', c.linkId);
      lastId = tail.append(c, firstOfDay, linkValue, ids);
      appended.push({ id: lastId, click: c, firstOfDay, ids, linkValue });
    }
    tail.finish();
    const events = slugs === null ? 0 : recordClickEventsSqlite(sqlite, appended, at, slugs, hostsOf);
    imported?.inside();
    return { written: appended.length, skipped: clicks.length - appended.length, lastId, appended, events };
  });
  return (clicks, at, imported) => {
    try {
      // IMMEDIATE: take the write lock first, so a read-then-write never fails on a stale snapshot.
      const outcome = append.immediate(clicks, at, imported);
      values.commit();
      seen.commit();
      tail.commit();
      return outcome;
    } catch (err) {
      values.rollback();
      seen.rollback();
      tail.rollback();
      throw err;
    }
  };
}
