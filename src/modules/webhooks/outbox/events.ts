/**
 * What the outbox records (webhooks/table.ts webhook_events): an event of a type, about a link
 * or not, with its data as JSON now or later. Engine-blind; the recorders beside this file write
 * them inside the caller's transaction.
 */
import type { WebhookEvent } from '../model';

export interface NewEvent {
  type: WebhookEvent;
  linkId: string | null;
  /** The event's data as JSON; null: filled after the commit (a link's, see fill). */
  data: string | null;
  /** A `clicks` event of bot hits only: delivered only to webhooks that take bot hits. */
  botsOnly?: boolean;
  /** A `clicks` event's bot hits, a JSON array of click records kept apart from `data` (null: none). */
  botData?: string | null;
}

/** The events of a link write: one per link, data to come (a deletion's is known: its id). */
export function linkEvents(type: 'link.created' | 'link.updated' | 'link.deleted', ids: Iterable<string>): NewEvent[] {
  return [...new Set(ids)].map((id) => ({
    type,
    linkId: id,
    data: type === 'link.deleted' ? JSON.stringify({ id }) : null,
  }));
}
