/**
 * Records events on SQLite inside the caller's (synchronous, IMMEDIATE) transaction: one
 * webhook_events row each, and a webhook_deliveries row for every active webhook subscribed to
 * its type. One writer at a time, so `seq` is the commit order.
 */
import type { Database } from 'bun:sqlite';
import { newId } from '../../../lib/ids';
import type { NewEvent } from './events';

export function recordEventsSqlite(sqlite: Database, events: readonly NewEvent[], at: number): void {
  if (events.length === 0) return;
  const insertEvent = sqlite.query<{ seq: number }, [string, string, string | null, string | null, number]>(
    'INSERT INTO webhook_events (id, type, link_id, data, at) VALUES (?, ?, ?, ?, ?) RETURNING seq',
  );
  // Asked once per write: a workspace without webhooks pays one read, not one per event.
  const subscribed = sqlite
    .query<{ id: string; events: string }, []>('SELECT id, events FROM webhooks WHERE active = 1')
    .all()
    .map((w) => ({ id: w.id, types: JSON.parse(w.events) as string[] }));
  const insertDelivery = sqlite.query<unknown, [string, number, number]>(
    'INSERT INTO webhook_deliveries (webhook_id, event_seq, next_at) VALUES (?, ?, ?)',
  );
  for (const event of events) {
    const { seq } = insertEvent.get(newId('evt'), event.type, event.linkId, event.data, at)!;
    for (const w of subscribed) if (w.types.includes(event.type)) insertDelivery.run(w.id, seq, at);
  }
}
