/**
 * Slink's own hosts, as destinations see them (docs/behaviour.md, "Rules worth knowing"): a
 * destination on SLINK_SHORT_HOST, SLINK_APP_HOST or any of the workspace's short domains points
 * back at this Slink, and a short link to its own short host redirects to itself for ever (each
 * hop a recorded click).
 *
 * "The same host" is the same host name (URL parsing gives both in lower case and punycode; a
 * trailing dot, which names the same DNS host, is ignored) on the same port, where the default
 * ports 80 and 443 count as one: a proxy that sends http on to https makes an http destination
 * loop as well. The same name on another explicit port is another service, and allowed.
 *
 * The address Slink listens on is its own host too, by any name that reaches it: on SLINK_PORT,
 * a loopback name or address (`localhost`, 127.0.0.0/8, `[::1]`, `0.0.0.0`) or an address of one
 * of the machine's network interfaces (`http://203.0.113.5:3000/<slug>` loops just the same).
 */
import { networkInterfaces } from 'node:os';
import type { Config } from '../../config';
import { invalid } from '../../lib/errors';
import type { DomainDirectory, DomainFacts } from '../domains/public';
import { MAX_DESTINATION_LENGTH, normalizeDestination } from './destination';

/** `name|port` of each own origin (hostKey). */
export type SlinkHosts = readonly string[];

/** Every name of this machine's loopback, as URL parsing writes it (IPv4 forms as dotted quads). */
const LOOPBACK =
  /^(?:localhost|.+\.localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[::1?\]|\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\])$/;

/** `name|port`, both default ports written as `default`, every loopback name as `loopback`. */
function hostKey(url: URL): string {
  const host = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  const name = LOOPBACK.test(host) ? 'loopback' : host;
  return `${name}|${portClass(url.port)}`;
}

/** URL leaves `port` empty for the scheme's own default; 80 and 443 are one class either way. */
const portClass = (port: string) => (port === '' || port === '80' || port === '443' ? 'default' : port);

/** The machine's interface addresses as URL hosts (`[fe80::1]`), read once. */
let interfaceHosts: string[] | undefined;
function machineHosts(): string[] {
  interfaceHosts ??= Object.values(networkInterfaces()).flatMap((list) =>
    (list ?? []).map(
      (i) => new URL(`http://${i.family === 'IPv6' ? `[${i.address.split('%')[0]}]` : i.address}/`).hostname,
    ),
  );
  return interfaceHosts;
}

const hostsByConfig = new WeakMap<object, SlinkHosts>();
/** The own hosts with the domains of one list (DomainDirectory.all(), a new array after each change). */
const hostsByDomains = new WeakMap<readonly DomainFacts[], { config: object; hosts: SlinkHosts }>();

/**
 * Slink's own hosts now: the configuration's, and every short domain's host on
 * its origin's port and on SLINK_PORT (a request to either reaches this service when the name
 * points here). What every destination of a link is checked against. `planned`: the origin of
 * a domain not made yet, counted as one (a dry run's check of what it would make).
 */
export function slinkHostsOf(
  deps: {
    config: Pick<Config, 'shortHost' | 'appHost' | 'port'>;
    domains: Pick<DomainDirectory, 'all'>;
  },
  planned?: string,
): SlinkHosts {
  const hosts = currentHostsOf(deps);
  return planned === undefined ? hosts : [...hosts, ...originKeys(planned, deps.config.port)];
}

/** A short domain's host keys: on its origin's port, and on SLINK_PORT. */
function originKeys(origin: string, port: number): string[] {
  const url = new URL(origin);
  const keys = [hostKey(url)];
  if (port !== 0) {
    url.port = String(port);
    keys.push(hostKey(url));
  }
  return keys;
}

function currentHostsOf(deps: {
  config: Pick<Config, 'shortHost' | 'appHost' | 'port'>;
  domains: Pick<DomainDirectory, 'all'>;
}): SlinkHosts {
  const list = deps.domains.all();
  const known = hostsByDomains.get(list);
  if (known !== undefined && known.config === deps.config) return known.hosts;
  const keys = new Set(configHostsOf(deps.config));
  for (const domain of list) {
    // The first domain has no host until the start names it (domains/start.ts).
    if (domain.host === '') continue;
    for (const key of originKeys(domain.origin, deps.config.port)) keys.add(key);
  }
  const hosts = [...keys];
  hostsByDomains.set(list, { config: deps.config, hosts });
  return hosts;
}

/** The own hosts of a configuration (its origins were checked at start, config.ts), without the short domains. */
function configHostsOf(config: Pick<Config, 'shortHost' | 'appHost' | 'port'>): SlinkHosts {
  let hosts = hostsByConfig.get(config);
  if (hosts === undefined) {
    const keys = new Set([config.shortHost, config.appHost].map((origin) => hostKey(new URL(origin))));
    // Port 0 is a port the system picks: nothing to compare with.
    if (config.port !== 0) {
      const port = portClass(String(config.port));
      keys.add(`loopback|${port}`);
      for (const host of machineHosts()) keys.add(`${LOOPBACK.test(host) ? 'loopback' : host}|${port}`);
    }
    hosts = [...keys];
    hostsByConfig.set(config, hosts);
  }
  return hosts;
}

/**
 * normalizeDestination, refusing a destination on one of Slink's own hosts: what every server
 * path that sets a destination calls (create, update, bulk preview and create).
 */
export function normalizeLinkDestination(raw: string, slinkHosts: SlinkHosts, field = 'destination') {
  const normalized = normalizeDestination(raw, field);
  // Parsed again from the normalised href: the same host and port the redirect would send to.
  const url = new URL(normalized.destination);
  if (slinkHosts.includes(hostKey(url))) throw invalid(field, ownHostRefusal(field, url.host));
  return normalized;
}

/** Why a URL field may not name one of Slink's own hosts: the loop it would make, in its own field's words. */
function ownHostRefusal(field: string, host: string): string {
  const itself = `points at this Slink itself (${host})`;
  switch (field) {
    case 'upstream':
      return `upstream ${itself}: read-through would ask itself for the slugs it does not know`;
    case 'fallbackUrl':
      return `fallbackUrl ${itself}: the link, once expired or used up, would send its visitors back here in a loop`;
    case 'rootUrl':
      return `rootUrl ${itself}: the domain's root would send its visitors back here in a loop`;
    case 'notFoundUrl':
      return `notFoundUrl ${itself}: an unknown slug would send its visitors back here in a loop`;
    case 'expiredUrl':
      return `expiredUrl ${itself}: an expired or used-up link would send its visitors back here in a loop`;
  }
  // A rule's destination (rules[i].destination): the link it belongs to would redirect to itself.
  if (field.startsWith('rules['))
    return `${field} ${itself}: the rule would send the link's visitors back here in a loop`;
  // A link's destination (a bulk line's URL, field text, is one).
  return `Destination ${itself}: a short link to it would redirect to itself`;
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
