/** Facts about the caller, read once at the edge. */
import { canonicalAddress } from '../lib/address';

/** What the client address needs of the server (Bun's, or a test double). */
export interface ServerLike {
  requestIP(request: Request): { address: string } | null;
}

/** Requests given to the app with a URL Elysia routes right (`routable`), to the request Bun received. */
const receivedAs = new WeakMap<Request, Request>();

/**
 * The client's address, in its canonical form (lib/address.ts: one client, one text): the socket
 * peer, or behind `trustedProxies` proxies (SLINK_TRUST_PROXY) the N-th X-Forwarded-For entry
 * counted from the right. Each proxy appends the address it was reached from, so the right-most
 * N entries were written by our own proxies and everything to their left by whoever sent the
 * request: a client can prepend any address it likes, so the left-most entry is never believed.
 * With fewer entries than proxies (a request that skipped one), the left-most entry there is is
 * the nearest any proxy saw. An entry that is not an address (`unknown`, a name, garbage) counts
 * as the proxy's own address, the socket peer: it never makes a client of its own.
 */
export function clientAddress(
  request: Request,
  server: ServerLike | null | undefined,
  trustedProxies: number,
): string | null {
  if (trustedProxies > 0) {
    const forwarded = request.headers.get('x-forwarded-for');
    if (forwarded) {
      const entries = forwarded.split(',');
      const entry = canonicalAddress(entries[Math.max(0, entries.length - trustedProxies)]!);
      if (entry !== null) return entry;
    }
  }
  const peer = server?.requestIP(request) ?? peerOfReceived(request, server);
  return peer ? (canonicalAddress(peer.address) ?? peer.address) : null;
}

/** Bun knows the peer of the request it received, not of a copy made from it (`routable`). */
function peerOfReceived(request: Request, server: ServerLike | null | undefined): { address: string } | null {
  const received = receivedAs.get(request);
  return received ? (server?.requestIP(received) ?? null) : null;
}

/**
 * Where the path of a request URL starts. Bun builds `request.url` from the Host header; a request
 * with no usable Host (none, as HTTP/1.0 allows; empty; not a host name) gets the bare target as
 * its URL (`/abc?x=1`), whose path starts at 0.
 */
function pathStart(url: string): number {
  return url.charCodeAt(0) === 0x2f ? 0 : url.indexOf('/', url.indexOf('//') + 2);
}

/** The path of a request URL without parsing it (every request pays for this). */
export function pathOf(url: string): string {
  const start = pathStart(url);
  if (start < 0) return '/';
  const end = url.indexOf('?', start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}

/**
 * Where a request URL's host starts and ends, into `out`: [start, end of the name (before a
 * port), end of the host and port]; all 0 when the URL names no host (HTTP/1.0 without Host).
 * Allocates nothing: the short site reads it once per request, for the domain and the app host.
 */
export function hostBoundsOf(url: string, out: Int32Array): void {
  if (url.charCodeAt(0) === 0x2f) {
    out[0] = out[1] = out[2] = 0;
    return;
  }
  const start = url.indexOf('//') + 2;
  const length = url.length;
  // An IPv6 literal's colons are inside its brackets: its port's colon comes after the ']'.
  const bracketed = url.charCodeAt(start) === 0x5b;
  let nameEnd = -1;
  let end = start;
  for (; end < length; end++) {
    const c = url.charCodeAt(end);
    if (c === 0x2f || c === 0x3f || c === 0x23) break;
    if (c === 0x3a && nameEnd < 0 && (!bracketed || url.charCodeAt(end - 1) === 0x5d)) nameEnd = end;
  }
  out[0] = start;
  out[1] = nameEnd < 0 ? end : nameEnd;
  out[2] = end;
}

/**
 * The host (and port) a request was sent to; empty when it named none usable. Bun builds
 * `request.url` from the Host header through the URL parser, which already lower-cases the host:
 * no case folding per request.
 */
export function hostOf(url: string): string {
  if (url.charCodeAt(0) === 0x2f) return '';
  const start = url.indexOf('//') + 2;
  let end = url.indexOf('/', start);
  if (end < 0) end = url.length;
  return url.slice(start, end);
}

/** The origin a request is handed to the app under when its own would be misrouted (`routable`). */
const ROUTING_ORIGIN = 'http://localhost';

/**
 * The request as the app can route it. Elysia finds the path at the first `/` from index 11 on,
 * as if every host had at least 4 characters (`http://a.io/`): a request to `Host: abc` (or `a:1`)
 * was routed by the wrong path (404 on every API and dashboard route), and one with no usable
 * Host has no origin at all (`new URL` throws on it). Such a request (rare: the check is two
 * index lookups) is handed over as a copy under ROUTING_ORIGIN: same method, headers and body;
 * nothing in the app reads the host (the split by host is decided before, on the original), and
 * `clientAddress` still finds the peer through the original.
 */
export function routable(request: Request): Request {
  const url = request.url;
  const start = pathStart(url);
  if (start >= 0 && start === url.indexOf('/', 11)) return request;
  const copy = new Request(ROUTING_ORIGIN + (start < 0 ? '/' : url.slice(start)), request);
  receivedAs.set(copy, request);
  return copy;
}
