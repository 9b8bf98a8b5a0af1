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

/**
 * The body of a delivery and of a live event, `{id, type, timestamp, data}`, around `data` as
 * stored (JSON text, not parsed again: a click batch's is hundreds of KB).
 */
export function eventBody(event: { id: string; type: string; at: number }, data: string): string {
  return `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(new Date(event.at).toISOString())},"data":${data}}`;
}

/** The events of a link write: one per link, data to come (the Link as it is after the commit). */
export function linkEvents(type: 'link.created' | 'link.updated', ids: Iterable<string>): NewEvent[] {
  return [...new Set(ids)].map((id) => ({ type, linkId: id, data: null }));
}

/**
 * A deleted link as its event tells it: nothing can be read of it after the commit. Its domain
 * and project say who may hear of it (a live stream limited to projects or domains, live.ts).
 */
export interface DeletedLink {
  id: string;
  slug: string;
  shortUrl: string;
  /** The host of its domain, as Link.domain. */
  domain: string;
  projectId: string | null;
}

/** The events of a deletion, one per link: `{id, slug, shortUrl, domain, projectId}`, as the link was. */
export function linkDeletedEvents(deleted: readonly DeletedLink[]): NewEvent[] {
  return deleted.map(({ id, slug, shortUrl, domain, projectId }) => ({
    type: 'link.deleted',
    linkId: id,
    data: JSON.stringify({ id, slug, shortUrl, domain, projectId }),
  }));
}
