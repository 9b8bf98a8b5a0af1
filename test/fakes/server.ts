/**
 * What every product fake shares: a real HTTP server (Bun.serve on port 0), the requests it was
 * sent (path and query, for tests that count pages), and a rate limit that refuses one request
 * after every N served, the way the product does (each fake says how it refuses).
 */

export interface RateLimit {
  /** Requests served between two refusals. */
  every: number;
}

export interface FakeServer {
  /** The origin the fake answers on, e.g. http://127.0.0.1:40123. */
  url: string;
  /** Every request's path and query, in order. */
  requests: string[];
  /** Requests refused for the rate limit. */
  refused: number;
  stop(): void;
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/**
 * Starts a fake: `limited` answers a rate-limited request, `handle` every other one. The rate
 * limit counts every request, so a source that waits and asks again is served.
 */
export function serveFake(
  handle: (req: Request, url: URL) => Response | Promise<Response>,
  rateLimit: RateLimit | undefined,
  limited: () => Response,
): FakeServer {
  let served = 0;
  const fake: FakeServer = {
    url: '',
    requests: [],
    refused: 0,
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req) {
      const url = new URL(req.url);
      fake.requests.push(url.pathname + url.search);
      if (
        rateLimit !== undefined &&
        served > 0 &&
        served % rateLimit.every === 0 &&
        fake.refused < served / rateLimit.every
      ) {
        fake.refused++;
        return limited();
      }
      served++;
      return handle(req, url);
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  return fake;
}

/** Pages of `size` from a list: the items of page `page` (1-based). */
export function pageOf<T>(items: readonly T[], page: number, size: number): T[] {
  return items.slice((page - 1) * size, page * size);
}
