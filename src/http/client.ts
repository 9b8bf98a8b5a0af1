/** Facts about the caller, read once at the edge. */

/** What the client address needs of the server (Bun's, or a test double). */
export interface ServerLike {
  requestIP(request: Request): { address: string } | null;
}

/**
 * The client's address: the socket peer, or with SLINK_TRUST_PROXY=1 the left-most
 * X-Forwarded-For entry (the original client as reported by the proxy chain).
 */
export function clientAddress(
  request: Request,
  server: ServerLike | null | undefined,
  trustProxy: boolean,
): string | null {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for');
    if (forwarded) {
      const first = forwarded.split(',')[0]!.trim();
      if (first) return first;
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
