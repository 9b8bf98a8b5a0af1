/**
 * Slink's own hosts, as destinations see them (docs/behaviour.md, "Rules worth knowing"): a
 * destination on SLINK_SHORT_HOST or SLINK_APP_HOST points back at this Slink, and a short
 * link to its own short host redirects to itself for ever (each hop a recorded click).
 *
 * "The same host" is the same host name (URL parsing gives both in lower case and punycode; a
 * trailing dot, which names the same DNS host, is ignored) on the same port, where the default
 * ports 80 and 443 count as one: a proxy that sends http on to https makes an http destination
 * loop as well. The same name on another explicit port is another service, and allowed.
 */
import type { Config } from '../../config';
import { invalid } from '../../lib/errors';
import { MAX_DESTINATION_LENGTH, normalizeDestination } from './destination';

/** `name|port` of each own origin (hostKey). */
export type SlinkHosts = readonly string[];

/** `name|port`, both default ports written as `default`. */
function hostKey(url: URL): string {
  const name = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  // URL leaves `port` empty for the scheme's own default; 80 and 443 are one class either way.
  const port = url.port === '' || url.port === '80' || url.port === '443' ? 'default' : url.port;
  return `${name}|${port}`;
}

/** The own hosts of a configuration (its origins were checked at start, config.ts). */
export function slinkHostsOf(config: Pick<Config, 'shortHost' | 'appHost'>): SlinkHosts {
  return [...new Set([config.shortHost, config.appHost].map((origin) => hostKey(new URL(origin))))];
}

/**
 * normalizeDestination, refusing a destination on one of Slink's own hosts: what every server
 * path that sets a destination calls (create, update, bulk preview and create).
 */
export function normalizeLinkDestination(raw: string, slinkHosts: SlinkHosts, field = 'destination') {
  const normalized = normalizeDestination(raw, field);
  // Parsed again from the normalised href: the same host and port the redirect would send to.
  const url = new URL(normalized.destination);
  if (slinkHosts.includes(hostKey(url))) {
    throw invalid(
      field,
      `Destination points at this Slink itself (${url.host}): a short link to it would redirect to itself`,
    );
  }
  return normalized;
}

/**
 * A fallback URL: the same rules as a destination, but kept whole (its utm_ keys are not lifted
 * into params: no params apply to it).
 */
export function normalizeFallbackUrl(raw: string | null, slinkHosts: SlinkHosts): string | null {
  if (raw === null) return null;
  normalizeLinkDestination(raw, slinkHosts, 'fallbackUrl');
  const href = new URL(raw.trim()).href;
  if (href.length > MAX_DESTINATION_LENGTH)
    throw invalid('fallbackUrl', `Destination is longer than ${MAX_DESTINATION_LENGTH} characters once encoded`);
  return href;
}
