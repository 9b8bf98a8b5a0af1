/**
 * A link event's data: the Link as it is right after the write that recorded the event
 * (links/writer.ts fills it after the commit), and the Link as it is now for an event whose fill
 * did not happen (a crash between the commit and the fill), which the webhooks module reads
 * through the `linkJson` the composition root gives it.
 */
import { nextTurn } from '../../lib/event-loop';
import type { OutboxStore } from '../webhooks/public';
import type { LinkReadDeps } from './deps';
import { toLinks } from './links';

const FILL_CHUNK = 50;

/** The Links of these ids that still exist, as JSON by id. */
export async function linkJsonById(deps: LinkReadDeps, ids: readonly string[]): Promise<Map<string, string>> {
  const rows = await deps.stores.links.findMany([...new Set(ids)]);
  const links = await toLinks(deps, rows);
  return new Map(links.map((link) => [link.id, JSON.stringify(link)]));
}

/**
 * After a link write committed: its created and updated events get the Links as they are now,
 * whoever reads them later (a webhook's delivery, a live stream resumed hours after).
 */
export async function fillLinkEvents(
  deps: LinkReadDeps & { stores: { readonly outbox: OutboxStore } },
  ids: readonly string[],
): Promise<void> {
  // A bulk write's hundreds of Links are read and written FILL_CHUNK at a time, a turn of the
  // event loop between, so a redirect arriving meanwhile is not kept waiting for all of them.
  for (let from = 0; from < ids.length; from += FILL_CHUNK) {
    if (from > 0) await nextTurn();
    const json = await linkJsonById(deps, ids.slice(from, from + FILL_CHUNK));
    await deps.stores.outbox.fillLinkData([...json].map(([linkId, data]) => ({ linkId, data })));
  }
}
