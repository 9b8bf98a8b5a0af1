/**
 * A pass-through HTTP proxy on loopback in front of a product's fake (test/fakes/): `hold(part)`
 * makes the requests whose path and query contain `part` wait until the function it returns is
 * called. So a test sees an import while it runs (a page of links held) without waiting on time.
 * `refuse(part, status)` answers those requests with that status instead (a source that stops
 * answering in the middle of a run).
 */
export function heldProxy(target: string) {
  const held = new Map<string, Promise<void>>();
  const refused = new Map<string, number>();
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url);
      const asked = url.pathname + url.search;
      for (const [part, gate] of held) if (asked.includes(part)) await gate;
      for (const [part, status] of refused)
        if (asked.includes(part)) return Response.json({ title: 'Refused by the test', status }, { status });
      const answer = await fetch(`${target}${url.pathname}${url.search}`, { headers: request.headers });
      return new Response(await answer.arrayBuffer(), { status: answer.status, headers: answer.headers });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    hold(part: string): () => void {
      const { promise, resolve } = Promise.withResolvers<void>();
      held.set(part, promise);
      return () => {
        held.delete(part);
        resolve();
      };
    },
    refuse(part: string, status: number): void {
      refused.set(part, status);
    },
    stop: () => server.stop(true),
  };
}
