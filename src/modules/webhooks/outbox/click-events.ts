/**
 * The `clicks` events of a written click batch (docs/behaviour.md, "Webhooks and live events"):
 * the batch's click records, as the clicks list gives them, CLICKS_PER_EVENT at most per event,
 * so a flush makes one delivery per webhook (two for the rare batch beyond that). Bot hits are in
 * the event with `bot: true`; a webhook without `bots` gets them filtered out at delivery, and
 * none at all for an event of bot hits only (`botsOnly`).
 */
import { clickRecord } from '../../analytics/click-fields';
import type { Click } from '../../analytics/model';
import type { EnrichedClick } from '../../clicks/public';
import type { NewEvent } from './events';

/** Clicks per `clicks` event: ~450 KB of JSON at most, one delivery per flush at 1,000 clicks/s. */
export const CLICKS_PER_EVENT = 1000;

/** A click as its batch's transaction wrote it: its id and what was stored. */
export interface WrittenClick {
  id: number;
  click: EnrichedClick;
}

/** What the transaction reads for the records: the slugs of the batch's links, its variants that exist. */
export interface ClickEventLinks {
  slugs: ReadonlyMap<string, string>;
  variants: ReadonlySet<string>;
}

/** The distinct values of one field of the written clicks (the ids the records look up). */
export function distinct(written: readonly WrittenClick[], pick: (c: EnrichedClick) => string | null): string[] {
  const values = new Set<string>();
  for (const w of written) {
    const v = pick(w.click);
    if (v !== null) values.add(v);
  }
  return [...values];
}

export function clickEvents(written: readonly WrittenClick[], links: ClickEventLinks): NewEvent[] {
  const events: NewEvent[] = [];
  for (let from = 0; from < written.length; from += CLICKS_PER_EVENT) {
    const chunk = written.slice(from, from + CLICKS_PER_EVENT);
    const records = chunk.map(({ id, click: c }) =>
      clickRecord(
        { ...c, id, timestamp: c.time },
        { id: c.linkId, slug: links.slugs.get(c.linkId) ?? '' },
        c.variantId !== null && links.variants.has(c.variantId),
      ),
    );
    const linkIds = new Set(chunk.map((w) => w.click.linkId));
    events.push({
      type: 'clicks',
      // One link's batch names it, so a stream of that link finds it by its column.
      linkId: linkIds.size === 1 ? chunk[0]!.click.linkId : null,
      data: JSON.stringify({ clicks: records }),
      botsOnly: chunk.every((w) => w.click.bot),
    });
  }
  return events;
}

/**
 * The `clicks` data as one reader gets it: bot hits only when it takes them, one link's clicks
 * only for a stream of that link. null when nothing is left (nothing to send).
 */
export function clicksFor(data: string, reader: { bots: boolean; linkId: string | null }): string | null {
  const { clicks } = JSON.parse(data) as { clicks: Click[] };
  const kept = clicks.filter((c) => (reader.bots || !c.bot) && (reader.linkId === null || c.linkId === reader.linkId));
  if (kept.length === clicks.length) return data;
  return kept.length === 0 ? null : JSON.stringify({ clicks: kept });
}
