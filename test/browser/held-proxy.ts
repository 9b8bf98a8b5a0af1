/**
 * A pass-through HTTP proxy on loopback in front of a product's fake (test/fakes/): `hold(part)`
 * makes the requests whose path and query contain `part` wait until the function it returns is
 * called. So a test sees an import while it runs (a page of links held) without waiting on time.
 */
export function heldProxy(target: string) {
  const held = new Map<string, Promise<void>>();
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url);
      for (const [part, gate] of held) if ((url.pathname + url.search).includes(part)) await gate;
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
    stop: () => server.stop(true),
  };
}
