/**
 * The runner reads and writes several links' history at once: a Shlink fake behind a proxy that
 * holds every link's first visits request until all the page's links have asked (so they are in
 * flight together; a runner taking one link at a time never gets past the first), then refuses
 * one link's visits. That link's history is noted in the errors; the others' is stored in full,
 * and the page (its position with it) is saved once all of them are done.
 */
import { expect, test } from 'bun:test';
import { startShlinkFake } from '../../fakes/shlink';
import { forEachEngine } from '../../helpers/engines';
import { ended, importApp } from './support';

const LINKS = 4;
const VISITS = 3;
/** The link whose visits the proxy refuses. */
const REFUSED = 'g2';

forEachEngine((engine) => {
  const shlink = startShlinkFake({ generated: { links: LINKS, visitsPerLink: VISITS } });
  // Links whose first visits request arrived, and the waits the proxy holds until all have.
  const asked = new Set<string>();
  let allAsked!: () => void;
  const together = new Promise<void>((resolve) => {
    allAsked = resolve;
  });
  const proxy = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const url = new URL(req.url);
      const visits = /^\/rest\/v3\/short-urls\/([^/]+)\/visits$/.exec(url.pathname);
      if (visits !== null) {
        const code = decodeURIComponent(visits[1]!);
        asked.add(code);
        if (asked.size === LINKS) allAsked();
        await together;
        if (code === REFUSED)
          return Response.json({ title: 'Invalid data', detail: 'refused by the proxy', status: 400 }, { status: 400 });
      }
      return fetch(`${shlink.url}${url.pathname}${url.search}`, { headers: req.headers });
    },
  });

  const { call, start } = importApp({ engine, fakes: [{ stop: () => proxy.stop(true) }, shlink] });

  test('links in flight together; one link’s history refused, the others stored in full', async () => {
    const id = await start({ source: 'shlink', url: `http://127.0.0.1:${proxy.port}`, token: shlink.apiKey });
    const final = await ended(async () => (await call('GET', `/imports/${id}`)).body, 'the import to end');
    expect(final).toMatchObject({
      status: 'done',
      links: { seen: LINKS, created: LINKS, skipped: 0, failed: 0 },
      clicks: { imported: (LINKS - 1) * VISITS },
    });
    expect(final.errors).toEqual([
      { source: expect.stringContaining(REFUSED), reason: expect.stringMatching(/^history: /) },
    ]);
    const links = (await call('GET', '/links?q=g')).body.items as { slug: string; clickCount: number }[];
    const counts = Object.fromEntries(links.map((l) => [l.slug, l.clickCount]));
    expect(counts).toEqual({ g0: VISITS, g1: VISITS, [REFUSED]: 0, g3: VISITS });
  });
});
