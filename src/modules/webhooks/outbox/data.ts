/**
 * An event's data: as stored, or when it has none yet, a link event whose fill did not happen (a
 * crash between the link write's commit and the fill) gets the link as it is now, or `{id}` when
 * it is gone.
 * Also the fill itself, right after a link write (links/writer.ts).
 */
import type { Deps } from '../../../deps';
import { nextTurn } from '../../../lib/event-loop';
import { toLinks } from '../../links/links';
import type { DueDelivery } from './store';

type DataDeps = Pick<Deps, 'stores' | 'config' | 'clock' | 'linkIndex'>;

const FILL_CHUNK = 50;

/** The Links of these ids that still exist, as JSON by id. */
async function linkJsonById(deps: DataDeps, ids: readonly string[]): Promise<Map<string, string>> {
  const rows = await deps.stores.links.findMany([...new Set(ids)]);
  const links = await toLinks(deps, rows);
  return new Map(links.map((link) => [link.id, JSON.stringify(link)]));
}

export async function eventData(deps: DataDeps, event: Pick<DueDelivery, 'type' | 'linkId' | 'data'>): Promise<string> {
  if (event.data !== null) return event.data;
  // A clicks event whose clicks were dropped after delivery (CLICKS_KEPT_FOR_MS): none to give.
  if (event.type === 'clicks') return '{"clicks":[]}';
  const id = event.linkId;
  if (id === null) return '{}';
  return (await linkJsonById(deps, [id])).get(id) ?? JSON.stringify({ id });
}

/**
 * After a link write committed: its created and updated events get the Links as they are now,
 * whoever reads them later (a webhook's delivery, a live stream resumed hours after).
 */
export async function fillLinkEvents(deps: DataDeps, ids: readonly string[]): Promise<void> {
  // A bulk write's hundreds of Links are read and written FILL_CHUNK at a time, a turn of the
  // event loop between, so a redirect arriving meanwhile is not kept waiting for all of them.
  for (let from = 0; from < ids.length; from += FILL_CHUNK) {
    if (from > 0) await nextTurn();
    const json = await linkJsonById(deps, ids.slice(from, from + FILL_CHUNK));
    await deps.stores.outbox.fillLinkData([...json].map(([linkId, data]) => ({ linkId, data })));
  }
}
