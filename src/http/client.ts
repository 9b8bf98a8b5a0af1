/** Facts about the caller, read once at the edge. */

/** What the client address needs of the server (Bun's, or a test double). */
export interface ServerLike {
  requestIP(request: Request): { address: string } | null;
}

/**
 * The client's address: the socket peer, or behind `trustedProxies` proxies (SLINK_TRUST_PROXY)
 * the N-th X-Forwarded-For entry counted from the right. Each proxy appends the address it was
 * reached from, so the right-most N entries were written by our own proxies and everything to
 * their left by whoever sent the request: a client can prepend any address it likes, so the
 * left-most entry is never believed. With fewer entries than proxies (a request that skipped
 * one), the left-most entry there is is the nearest any proxy saw.
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
      const entry = entries[Math.max(0, entries.length - trustedProxies)]!.trim();
      if (entry) return entry;
    }
  }
  return server?.requestIP(request)?.address ?? null;
}

/** The path of a request URL without parsing it (every request pays for this). */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const end = url.indexOf('?', start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}

/**
 * The host (and port) a request was sent to. Bun builds `request.url` from the Host header
 * through the URL parser, which already lower-cases the host: no case folding per request.
 */
export function hostOf(url: string): string {
  const start = url.indexOf('//') + 2;
  let end = url.indexOf('/', start);
  if (end < 0) end = url.length;
  return url.slice(start, end);
}
