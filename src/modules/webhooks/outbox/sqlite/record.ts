/**
 * Records events on SQLite inside the caller's (synchronous, IMMEDIATE) transaction: one
 * webhook_events row each, and a webhook_deliveries row for every webhook subscribed to its type,
 * disabled ones too (enabling one delivers what it missed). One writer at a time, so `seq` is
 * the commit order.
 */
import type { Database } from 'bun:sqlite';
import { newId } from '../../../../lib/ids';
import { knownVariantsSqlite } from '../../../variants/public';
import {
  clickEvents,
  type DomainHostsOf,
  distinct,
  domainIdsOf,
  type EventLink,
  linkAddresses,
  type WrittenClick,
} from '../click-events';
import type { NewEvent } from '../events';

export function recordEventsSqlite(sqlite: Database, events: readonly NewEvent[], at: number): void {
  if (events.length === 0) return;
  const insertEvent = sqlite.query<
    { seq: number },
    [string, string, string | null, string | null, string | null, number]
  >('INSERT INTO webhook_events (id, type, link_id, data, bot_data, at) VALUES (?, ?, ?, ?, ?, ?) RETURNING seq');
  // Asked once per write: a workspace without webhooks pays one read, not one per event.
  const subscribed = sqlite
    .query<{ id: string; events: string; bots: number }, []>('SELECT id, events, bots FROM webhooks')
    .all()
    .map((w) => ({ id: w.id, types: JSON.parse(w.events) as string[], bots: w.bots === 1 }));
  const insertDelivery = sqlite.query<unknown, [string, number, number]>(
    'INSERT INTO webhook_deliveries (webhook_id, event_seq, next_at) VALUES (?, ?, ?)',
  );
  if (subscribed.length === 0) {
    insertUndelivered(sqlite, events, at);
    return;
  }
  for (const event of events) {
    const { seq } = insertEvent.get(newId('evt'), event.type, event.linkId, event.data, event.botData ?? null, at)!;
    for (const w of subscribed) {
      if (w.types.includes(event.type) && (w.bots || !event.botsOnly)) insertDelivery.run(w.id, seq, at);
    }
  }
}

/** Events per multi-row insert when no webhook is to be told (a bulk write's, an import page's). */
const EVENTS_PER_INSERT = 100;

/** Events no webhook delivers: inserted many a statement, their seqs not needed. */
function insertUndelivered(sqlite: Database, events: readonly NewEvent[], at: number): void {
  for (let from = 0; from < events.length; from += EVENTS_PER_INSERT) {
    const chunk = events.slice(from, from + EVENTS_PER_INSERT);
    sqlite
      .query<unknown, (string | number | null)[]>(
        `INSERT INTO webhook_events (id, type, link_id, data, bot_data, at) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
      )
      .run(...chunk.flatMap((e) => [newId('evt'), e.type, e.linkId, e.data, e.botData ?? null, at]));
  }
}

/**
 * Whether a click batch records `clicks` events: anybody takes them, a webhook subscribed to
 * clicks (a disabled one too: its events are kept for when it is enabled) or a live stream open on some process. Asked first in the batch's
 * transaction, so the links it reads anyway come with their slugs only then.
 */
export function clickEventsWantedSqlite(sqlite: Database, at: number): boolean {
  const wanted = sqlite
    .query<{ yes: number }, [number]>(
      `SELECT EXISTS (SELECT 1 FROM webhooks WHERE events LIKE '%"clicks"%')
         OR EXISTS (SELECT 1 FROM event_listeners WHERE until > ?) AS yes`,
    )
    .get(at)!.yes;
  return wanted === 1;
}

/** A click batch's `clicks` events, inside its transaction (`links`: its links' slugs and domain ids, `hostsOf` their domains' hosts); returns how many. */
export function recordClickEventsSqlite(
  sqlite: Database,
  written: readonly WrittenClick[],
  at: number,
  links: ReadonlyMap<string, EventLink>,
  hostsOf: DomainHostsOf,
): number {
  if (written.length === 0) return 0;
  const events = clickEvents(written, {
    addresses: linkAddresses(links, hostsOf(domainIdsOf(links))),
    variants: knownVariantsSqlite(
      sqlite,
      distinct(written, (c) => c.variantId),
    ),
  });
  recordEventsSqlite(sqlite, events, at);
  return events.length;
}
