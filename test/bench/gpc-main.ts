/**
 * What honouring Global Privacy Control costs a redirect on the main thread (docs/performance.md,
 * "Privacy signals"): the short site's handler (redirect/index.ts) called with prebuilt requests,
 * as domains-main.ts does, on one database of links, with the same requests twice: without and
 * with `Sec-GPC: 1` (SLINK_HONOR_GPC=1, the default). An opted-out click is classified on the
 * redirect (its agent is dropped there) instead of in the flush, so each timed batch also takes
 * its clicks out of the buffer and copies them to wire records (flusher.ts toWire, which
 * classifies the rest): the main thread's whole share of a click either way. Batches of the two
 * alternate; the medians of their time per redirect are compared. `bun run bench -- --gpc` runs
 * it after its wrk runs; alone:
 *   bun run test/bench/gpc-main.ts [-- --links 100000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Deps } from '../../src/compose/deps';
import type { ServerLike } from '../../src/http/client';
import { toWire } from '../../src/modules/clicks/capture/flusher';
import { createShortSite } from '../../src/modules/redirect';
import { benchDeps, NO_PARAMS, seedLinks } from './seed-links';

const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const us = (ns: number) => `${(ns / 1000).toFixed(2)} us`;

type ShortSite = ReturnType<typeof createShortSite>;

/** Requests for every slug in `order`, with or without Sec-GPC, otherwise the same headers. */
function requests(slugs: readonly string[], order: readonly number[], gpc: boolean): Request[] {
  return order.map((i, n) => {
    const headers: Record<string, string> = {
      'user-agent': AGENTS[n % AGENTS.length]!,
      'accept-language': 'en-US,en;q=0.9',
      referer: 'https://news.example.org/a/post',
    };
    if (gpc) headers['sec-gpc'] = '1';
    return new Request(`http://localhost/${slugs[i]}`, { headers });
  });
}

/** Times one batch through `site`, and its clicks out of the buffer to wire records; answers the ns per redirect. */
function timeBatch(deps: Deps, site: ShortSite, list: Request[], from: number, batch: number): number {
  const server: ServerLike = { requestIP: () => ({ address: '198.51.100.7' }) };
  const buffer = deps.clicks.buffer;
  const start = Bun.nanoseconds();
  for (let i = from; i < from + batch; i++) {
    const answer = site({ request: list[i]!, server });
    if (!(answer instanceof Response) || answer.status !== 302) throw new Error(`${list[i]!.url} did not redirect`);
  }
  let sink = 0;
  for (const record of buffer.take(buffer.length)) sink += toWire(record).time;
  const ns = (Bun.nanoseconds() - start) / batch;
  if (sink === 0) throw new Error('no click recorded');
  return ns;
}

/** Seeds `links` plain links and times both sides; answers the report's lines. */
export async function benchGpcMainThread(links: number): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'slink-bench-gpc-'));
  try {
    const path = join(dir, 'gpc.db');
    const seeding = benchDeps(path);
    const slugs = await seedLinks(seeding, links, (i) => ({
      destination: `https://www.example.org/articles/${i}`,
      params: i % 3 === 0 ? { utm_source: 'newsletter', utm_campaign: `spring-${i % 40}` } : NO_PARAMS,
    }));
    await seeding.stores.close();
    const deps = benchDeps(path);
    await deps.linksLoaded;
    if (!deps.config.privacy.honorGpc) throw new Error('SLINK_HONOR_GPC must be 1 for this benchmark');
    const site = createShortSite(deps);
    const order = slugs.map((_, i) => i).sort(() => Math.random() - 0.5);
    const sides = [
      { name: 'without', list: requests(slugs, order, false), ns: [] as number[] },
      { name: 'with', list: requests(slugs, order, true), ns: [] as number[] },
    ];
    const batch = 1000;
    // Alternating batches over every link, twice; the first pass warms up (not kept).
    for (let pass = 0; pass < 3; pass++)
      for (let from = 0; from + batch <= links; from += batch)
        for (const side of pass % 2 === 0 ? sides : [...sides].reverse()) {
          const ns = timeBatch(deps, site, side.list, from, batch);
          if (pass > 0) side.ns.push(ns);
        }
    const [a, b] = sides.map((s) => median(s.ns)) as [number, number];
    deps.linkIndex.stopLoading();
    await deps.stores.close();
    return [
      `The short site's handler and the flush's main-thread share (take, classify, copy to wire) on the main thread (test/bench/gpc-main.ts): ${links.toLocaleString('en-US')} links, the same requests (a quarter from Googlebot) without and with Sec-GPC: 1; batches of ${batch} alternating, ${sides[0]!.ns.length} of each kept, medians.`,
      '',
      '| without Sec-GPC per redirect | with Sec-GPC per redirect | with / without | target |',
      '|---|---|---|---|',
      `| ${us(a)} | ${us(b)} | ${(b / a).toFixed(3)} | with ≤ without: ${b <= a ? 'met' : 'NOT met'} |`,
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { links: { type: 'string', default: '100000' } } });
  console.log((await benchGpcMainThread(Number(values.links))).join('\n'));
}
