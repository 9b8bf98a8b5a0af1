/**
 * An old short-link service for read-through tests: a real HTTP server (Bun.serve on loopback)
 * that answers `/<slug>` as its table says (a redirect, a 404, a hold until released) and counts
 * what it was asked, at most how many at once.
 */

export type UpstreamReply =
  | { redirect: string; status?: number }
  | { status: number }
  /** Answers nothing until `release()` (then 404). */
  | 'hold';

export interface FakeUpstream {
  origin: string;
  /** slug -> what it answers; a slug not in it: 404. */
  replies: Map<string, UpstreamReply>;
  /** Times each slug was asked. */
  asked: Map<string, number>;
  /** Requests being answered now, and the most there ever were at once. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  readonly total: number;
  /** Answers every held request (404) and holds no more. */
  release(): void;
  stop(): Promise<void>;
}

export function startFakeUpstream(): FakeUpstream {
  const replies = new Map<string, UpstreamReply>();
  const asked = new Map<string, number>();
  let inFlight = 0;
  let maxInFlight = 0;
  let total = 0;
  let releaseAll: () => void = () => {};
  let released = new Promise<void>((resolve) => {
    releaseAll = resolve;
  });
  let holding = true;
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const slug = new URL(request.url).pathname.slice(1);
      asked.set(slug, (asked.get(slug) ?? 0) + 1);
      total++;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        const reply = replies.get(slug) ?? { status: 404 };
        if (reply === 'hold') {
          if (holding) await released;
          return new Response('gone', { status: 404 });
        }
        if ('redirect' in reply)
          return new Response(null, { status: reply.status ?? 301, headers: { location: reply.redirect } });
        return new Response('no such link', { status: reply.status });
      } finally {
        inFlight--;
      }
    },
  });
  return {
    origin: `http://127.0.0.1:${server.port}`,
    replies,
    asked,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    get total() {
      return total;
    },
    release() {
      holding = false;
      releaseAll();
      released = Promise.resolve();
    },
    async stop() {
      this.release();
      await server.stop(true);
    },
  };
}
