/** Facts about the caller, read once at the edge. */

interface ServerLike {
  requestIP(request: Request): { address: string } | null;
}

/**
 * The client's address: the socket peer, or with SLINK_TRUST_PROXY=1 the left-most
 * X-Forwarded-For entry (the original client as reported by the proxy chain).
 */
export function clientAddress(request: Request, server: ServerLike | null | undefined, trustProxy: boolean): string | null {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for');
    if (forwarded) {
      const first = forwarded.split(',')[0]!.trim();
      if (first) return first;
    }
  }
  return server?.requestIP(request)?.address ?? null;
}
