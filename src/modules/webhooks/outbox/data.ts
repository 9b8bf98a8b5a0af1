/**
 * An event's data: as stored, or when it has none yet, a link event whose fill did not happen (a
 * crash between the link write's commit and the fill) gets the link as it is now, or `{id}` when
 * it is gone (the Link's JSON comes from the links module, through `linkJson`).
 */
import type { WebhooksDeps } from '../deps';
import type { DueDelivery } from './store';

export async function eventData(
  deps: Pick<WebhooksDeps, 'linkJson'>,
  event: Pick<DueDelivery, 'type' | 'linkId' | 'data'>,
): Promise<string> {
  if (event.data !== null) return event.data;
  // A clicks event whose clicks were dropped after delivery (CLICKS_KEPT_FOR_MS): none to give.
  if (event.type === 'clicks') return '{"clicks":[]}';
  const id = event.linkId;
  if (id === null) return '{}';
  return (await deps.linkJson([id])).get(id) ?? JSON.stringify({ id });
}
