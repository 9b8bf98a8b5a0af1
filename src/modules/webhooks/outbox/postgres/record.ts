/**
 * Records events on PostgreSQL inside the caller's transaction: webhook_events rows numbered
 * under EVENT_FEED_LOCK (held to the commit: numbers commit in order, as the live stream needs),
 * and a webhook_deliveries row for every webhook subscribed to each event's type (disabled ones
 * too: enabling one delivers what it missed), in
 * two statements whatever the number of events. Last in the transaction, like the change feed's
 * announcement, so writers wait for each other only for that instant.
 */
import type { Pg } from '../../../../db/postgres/client';
import { EVENT_FEED_LOCK } from '../../../../db/postgres/locks';
import { newId } from '../../../../lib/ids';
import { knownVariantsPostgres } from '../../../variants/public';
import type { LinkAddress } from '../../click-record';
import { clickEvents, distinct, type WrittenClick } from '../click-events';
import type { NewEvent } from '../events';

export async function recordEventsPostgres(tx: Pg, events: readonly NewEvent[], at: number): Promise<void> {
  if (events.length === 0) return;
  const col = <T>(pick: (e: NewEvent) => T) => events.map(pick);
  const eventIds = events.map(() => newId('evt'));
  const botsOnly = eventIds.filter((_, i) => events[i]!.botsOnly === true);
  await tx`WITH locked AS (SELECT pg_advisory_xact_lock(${EVENT_FEED_LOCK})),
    inserted AS (
      INSERT INTO webhook_events (seq, id, type, link_id, data, bot_data, at)
      SELECT nextval('webhook_event_seq'), e.id, e.type, e.link_id, e.data, e.bot_data, ${at}::int8
      FROM locked, unnest(
        ${tx.array(eventIds, 'text')}::text[],
        ${tx.array(
          col((e) => e.type),
          'text',
        )}::text[],
        ${tx.array(
          col((e) => e.linkId),
          'text',
        )}::text[],
        ${tx.array(
          col((e) => e.data),
          'text',
        )}::text[],
        ${tx.array(
          col((e) => e.botData ?? null),
          'text',
        )}::text[]
      ) WITH ORDINALITY AS e(id, type, link_id, data, bot_data, n)
      ORDER BY e.n
      RETURNING seq, id, type
    )
    INSERT INTO webhook_deliveries (webhook_id, event_seq, next_at)
    SELECT w.id, i.seq, ${at}::int8
    FROM inserted i JOIN webhooks w ON w.events::jsonb ? i.type
    WHERE w.bots OR NOT (i.id = ANY(${tx.array(botsOnly, 'text')}::text[]))`;
}

/**
 * Whether a click batch records `clicks` events: anybody takes them, a webhook subscribed to
 * clicks (a disabled one too: its events are kept for when it is enabled) or a live stream open on some node. Asked first in the batch's
 * transaction, so the links it reads anyway come with their slugs only then.
 */
export async function clickEventsWantedPostgres(tx: Pg, at: number): Promise<boolean> {
  const [wanted] = await tx<{ yes: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM webhooks WHERE events::jsonb ? 'clicks')
      OR EXISTS (SELECT 1 FROM event_listeners WHERE until > ${at}::int8) AS yes`;
  return wanted?.yes === true;
}

/** A click batch's `clicks` events, inside its transaction (`addresses`: its links' slugs and domains); returns how many. */
export async function recordClickEventsPostgres(
  tx: Pg,
  written: readonly WrittenClick[],
  at: number,
  addresses: ReadonlyMap<string, LinkAddress>,
): Promise<number> {
  if (written.length === 0) return 0;
  const events = clickEvents(written, {
    addresses,
    variants: await knownVariantsPostgres(
      tx,
      distinct(written, (c) => c.variantId),
    ),
  });
  await recordEventsPostgres(tx, events, at);
  return events.length;
}
