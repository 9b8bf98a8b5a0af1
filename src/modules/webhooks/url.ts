/**
 * Where a webhook may deliver (docs/behaviour.md, "Webhooks"): an absolute http(s) URL with a
 * host, no user:password, no control characters; and, unless SLINK_WEBHOOKS_ALLOW_PRIVATE=1,
 * no name or address that leads to loopback, private, link-local or other internal ranges
 * (lib/private-address.ts). The check runs at create and again at each delivery, where the
 * connection is made to the very address that was checked (lib/pinned-lookup.ts): a name pointed at
 * the inside after its creation, or answering differently the second time, gets nowhere.
 */

import type { LookupAddress } from 'node:dns';
import { invalid } from '../../lib/errors';
import { addressesOf } from '../../lib/pinned-lookup';
import { isPrivateAddress } from '../../lib/private-address';
import { hasControlChars } from '../../lib/text';
import { WEBHOOK_LIMITS } from './model';

/** The URL as stored: parsed and re-serialised. Throws 400 naming `url`. */
export function normalizeWebhookUrl(raw: string): string {
  if (hasControlChars(raw)) throw invalid('url', 'url contains control characters');
  const input = raw.trim();
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw invalid('url', 'url must be an absolute http or https URL');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !/^https?:\/\//i.test(input) || url.hostname === '')
    throw invalid('url', 'url must be an absolute http or https URL with a host');
  if (url.username !== '' || url.password !== '') throw invalid('url', 'url must not contain a user name or password');
  if (url.href.length > WEBHOOK_LIMITS.urlLength)
    throw invalid('url', `url is longer than ${WEBHOOK_LIMITS.urlLength} characters once encoded`);
  return url.href;
}

/** The host of a URL as a resolver or an address check takes it (IPv6 without its brackets). */
function hostOf(url: string): string {
  const host = new URL(url).hostname;
  return host.startsWith('[') ? host.slice(1, -1) : host;
}

/**
 * Refuses (400 naming `url`) a URL whose host is, or resolves to, an internal address, when
 * private addresses are not allowed. A name that does not resolve (yet) is accepted: there is
 * nothing it leads to, and every delivery checks again.
 */
export async function checkWebhookTarget(url: string, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const host = hostOf(url);
  let addresses: LookupAddress[];
  try {
    addresses = await addressesOf(host);
  } catch {
    return;
  }
  const inside = addresses.find((a) => isPrivateAddress(a.address));
  if (inside !== undefined)
    throw invalid(
      'url',
      `url's host ${host} leads to an internal address (${inside.address}); set SLINK_WEBHOOKS_ALLOW_PRIVATE=1 to allow it`,
    );
}
