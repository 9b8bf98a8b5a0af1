/**
 * The `clicks` events of a written click batch (docs/behaviour.md, "Webhooks and live events"):
 * the batch's click records, as the clicks list gives them, CLICKS_PER_EVENT at most per event,
 * so a flush makes one delivery per webhook (two for the rare batch beyond that). The human
 * clicks are the event's data; its bot hits are kept beside them, for webhooks and streams that
 * take them (after the human clicks); an event of bot hits only makes no other delivery.
 */
import { type Click, type ClickFacts, clickRecord, type LinkAddress } from '../click-record';
import type { NewEvent } from './events';

/** Clicks per `clicks` event: ~450 KB of JSON at most, one delivery per flush at 1,000 clicks/s. */
export const CLICKS_PER_EVENT = 1000;

/**
 * What a `clicks` event's record is made of: the facts of a stored click (the click writer's
 * enriched click is one; named here so that webhooks need nothing of the clicks module).
 */
export interface EventClick extends ClickFacts {
  linkId: string;
  time: number;
  variantId: string | null;
  params: Readonly<Record<string, string>>;
}

/** A click as its batch's transaction wrote it: its id and what was stored. */
export interface WrittenClick {
  id: number;
  click: EventClick;
}

/** What the transaction reads for the records: the slugs and domains of the batch's links, its variants that exist. */
export interface ClickEventLinks {
  addresses: ReadonlyMap<string, LinkAddress>;
  variants: ReadonlySet<string>;
}

/** The distinct values of one field of the written clicks (the ids the records look up). */
export function distinct(written: readonly WrittenClick[], pick: (c: EventClick) => string | null): string[] {
  const values = new Set<string>();
  for (const w of written) {
    const v = pick(w.click);
    if (v !== null) values.add(v);
  }
  return [...values];
}

/** A link deleted before its click was written has no record (the writer drops the click): never used in practice. */
const NO_ADDRESS: LinkAddress = { slug: '', domain: '' };

export function clickEvents(written: readonly WrittenClick[], links: ClickEventLinks): NewEvent[] {
  const events: NewEvent[] = [];
  for (let from = 0; from < written.length; from += CLICKS_PER_EVENT) {
    const chunk = written.slice(from, from + CLICKS_PER_EVENT);
    const humans: Click[] = [];
    const bots: Click[] = [];
    for (const { id, click: c } of chunk) {
      const record = clickRecord(
        { id, timestamp: c.time, facts: c, params: c.params },
        { id: c.linkId, ...(links.addresses.get(c.linkId) ?? NO_ADDRESS) },
        c.variantId !== null && links.variants.has(c.variantId),
      );
      (c.bot ? bots : humans).push(record);
    }
    const linkIds = new Set(chunk.map((w) => w.click.linkId));
    events.push({
      type: 'clicks',
      // One link's batch names it, so a stream of that link finds it by its column.
      linkId: linkIds.size === 1 ? chunk[0]!.click.linkId : null,
      data: JSON.stringify({ clicks: humans }),
      botData: bots.length === 0 ? null : JSON.stringify(bots),
      botsOnly: humans.length === 0,
    });
  }
  return events;
}

const OPEN = '{"clicks":[';

/**
 * The `clicks` data as one reader gets it: the human clicks (`data`, as stored), then the bot
 * hits when it takes them (spliced in as text: a webhook's delivery parses nothing); one link's
 * clicks only for a stream of that link. null when nothing is left (nothing to send).
 */
export function clicksFor(
  event: { data: string; botData: string | null },
  reader: { bots: boolean; linkId: string | null },
): string | null {
  const bots = reader.bots ? event.botData : null;
  let data = event.data;
  if (bots !== null && bots !== '[]') {
    const humans = data.slice(OPEN.length, -2);
    data = `${OPEN}${humans}${humans === '' ? '' : ','}${bots.slice(1, -1)}]}`;
  }
  if (reader.linkId !== null) {
    const { clicks } = JSON.parse(data) as { clicks: Click[] };
    data = JSON.stringify({ clicks: clicks.filter((c) => c.linkId === reader.linkId) });
  }
  return data === `${OPEN}]}` ? null : data;
}
