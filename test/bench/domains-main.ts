/**
 * What several short domains cost a redirect on the main thread (docs/performance.md, "Several
 * short domains"): the short site's handler (redirect/index.ts: Host to domain, (domain, slug)
 * to link, the click buffered, the answer made) called with prebuilt requests, as rules.ts times
 * link rules, on two databases of the same links: all on the default domain, and spread over N
 * domains (domains.ts), each request naming its link's Host. Batches of the two alternate; the
 * medians of their time per redirect are compared. Clicks are taken out of the buffer between
 * batches (not timed). Less exposed to a busy box than wrk's rates: no sockets, no other thread.
 * `bun run bench -- --domains N` runs it after its wrk runs; alone:
 *   bun run test/bench/domains-main.ts [-- --links 100000 --domains 20]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Deps } from '../../src/compose/deps';
import type { ServerLike } from '../../src/http/client';
import { createShortSite } from '../../src/modules/redirect';
import { DEFAULT_HOST, spreadOverDomains } from './domains';
import { benchDeps, NO_PARAMS, seedLinks } from './seed-links';

const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const us = (ns: number) => `${(ns / 1000).toFixed(2)} us`;

type ShortSite = ReturnType<typeof createShortSite>;

/** Requests for every slug in a shuffled order (the same order for both sides), each with its host. */
function requests(slugs: readonly string[], hostOf: (i: number) => string, order: readonly number[]): Request[] {
  return order.map(
    (i, n) =>
      new Request(`http://${hostOf(i)}/${slugs[i]}`, {
        headers: { 'user-agent': AGENTS[n % AGENTS.length]!, 'accept-language': 'en-US,en;q=0.9' },
      }),
  );
}

/** Times one batch through `site`; answers the ns per redirect. */
function timeBatch(deps: Deps, site: ShortSite, list: Request[], from: number, batch: number): number {
  const server: ServerLike = { requestIP: () => ({ address: '198.51.100.7' }) };
  const start = Bun.nanoseconds();
  for (let i = from; i < from + batch; i++) {
    const answer = site({ request: list[i]!, server });
    if (!(answer instanceof Response) || answer.status !== 302) throw new Error(`${list[i]!.url} did not redirect`);
  }
  const ns = (Bun.nanoseconds() - start) / batch;
  deps.clicks.buffer.take(deps.clicks.buffer.length);
  return ns;
}

/** Seeds `links` plain links, spreads a copy over `domains` domains, and times both; answers the report's lines. */
export async function benchDomainsMainThread(links: number, domains: number): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'slink-bench-domains-'));
  try {
    const onePath = join(dir, 'one.db');
    const spreadPath = join(dir, 'spread.db');
    const seeding = benchDeps(onePath);
    const slugs = await seedLinks(seeding, links, (i) => ({
      destination: `https://www.example.org/articles/${i}`,
      params: i % 3 === 0 ? { utm_source: 'newsletter', utm_campaign: `spring-${i % 40}` } : NO_PARAMS,
    }));
    await seeding.stores.close();
    const hosts = spreadOverDomains(onePath, spreadPath, slugs, domains);
    const one = benchDeps(onePath);
    const spread = benchDeps(spreadPath);
    await Promise.all([one.linksLoaded, spread.linksLoaded]);
    const order = slugs.map((_, i) => i).sort(() => Math.random() - 0.5);
    const sides = [
      { deps: one, site: createShortSite(one), list: requests(slugs, () => DEFAULT_HOST, order), ns: [] as number[] },
      {
        deps: spread,
        site: createShortSite(spread),
        list: requests(slugs, (i) => hosts[i]!, order),
        ns: [] as number[],
      },
    ];
    const batch = 1000;
    // Alternating batches over every link, twice; the first pass of each warms it up (not kept).
    for (let pass = 0; pass < 3; pass++)
      for (let from = 0; from + batch <= links; from += batch)
        for (const side of pass % 2 === 0 ? sides : [...sides].reverse()) {
          const ns = timeBatch(side.deps, side.site, side.list, from, batch);
          if (pass > 0) side.ns.push(ns);
        }
    const [a, b] = sides.map((s) => median(s.ns)) as [number, number];
    for (const s of sides) {
      s.deps.linkIndex.stopLoading();
      await s.deps.stores.close();
    }
    return [
      `The short site's handler alone on the main thread (test/bench/domains-main.ts): ${links.toLocaleString('en-US')} links on one domain against the same links over ${domains} domains, each request with its link's Host; batches of ${batch} alternating, ${sides[0]!.ns.length} of each kept, medians.`,
      '',
      `| one domain per redirect | ${domains} domains per redirect | difference | ${domains} domains / one | target |`,
      '|---|---|---|---|---|',
      `| ${us(a)} | ${us(b)} | ${us(b - a)} | ${(b / a).toFixed(3)} | difference ≤ 1 us: ${b - a <= 1000 ? 'met' : 'NOT met'} |`,
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { links: { type: 'string', default: '100000' }, domains: { type: 'string', default: '20' } },
  });
  console.log((await benchDomainsMainThread(Number(values.links), Number(values.domains))).join('\n'));
}
