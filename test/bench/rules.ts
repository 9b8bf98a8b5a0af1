/**
 * What link rules cost the redirect on the main thread (docs/performance.md, "Link rules"): the
 * short site's redirect function called with prebuilt requests, as the main-thread timing of
 * "Where the CPU goes" does, on one database with:
 *
 * (a) a link with five rules none of which matches, against the same link without rules;
 * (b) a link with one country rule (that does not match), against the same without rules: the
 *     geo lookup's added cost at the median, addresses drawn as the wrk run draws them (four
 *     fifths from a pool, one fifth new);
 * (c) 100,000 links, a quarter of them with three rules, against 100,000 without: redirects
 *     per second of the redirect function over every link in a shuffled order.
 *
 * (d) a link with a query rule and forwardQuery: a request with 15.6 KB of bad escapes in its
 *     query against one with an ordinary query (what a hostile client can cost the event loop);
 * (e) a link with a device rule: a new, long agent on every request against five repeated ones
 *     (a parse each, bounded by what the parser reads).
 *
 * Clicks are taken out of the buffer between batches (not timed): the writer's side is the same
 * with or without rules (one more click target per matched rule). `bun run bench` runs it after
 * its wrk runs; alone: `bun run test/bench/rules.ts [-- --links 100000] [--hostile]` (--hostile: (d) and (e) only).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Deps } from '../../src/compose/deps';
import type { ServerLike } from '../../src/http/client';
import { OPERATOR } from '../../src/modules/access/public';
import type { Rule } from '../../src/modules/links/rules';
import { createLink } from '../../src/modules/links/service';
import { createRedirect } from '../../src/modules/redirect/redirect';
import { benchDeps, seedLinks } from './seed-links';

const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
];
const LANGUAGES = ['en-US,en;q=0.9', 'fr-FR,fr;q=0.8,en;q=0.5', 'de', 'es-ES,es;q=0.9'];
const REFERRERS = ['https://www.google.com/', 'https://news.ycombinator.com/item?id=1', ''];

/** Five rules none of the requests below matches: every condition kind a request must be read for. */
const FIVE_MISSES = [
  { when: { device: ['tablet'] }, destination: 'https://example.com/a' },
  { when: { os: ['Windows'], browser: ['Opera'] }, destination: 'https://example.com/b' },
  { when: { language: ['ja'] }, destination: 'https://example.com/c' },
  { when: { referrer: ['example.net'] }, destination: 'https://example.com/d' },
  { when: { query: { src: 'x' } }, destination: 'https://example.com/e' },
];
/** No request is from Antarctica. */
const COUNTRY_MISS = [{ when: { country: ['AQ'] }, destination: 'https://example.com/aq' }];
const QUARTER_RULES: Rule[] = [
  { when: { device: ['tablet'] }, destination: 'https://example.com/t' },
  { when: { language: ['ja'] }, destination: 'https://example.com/j' },
  { when: { query: { src: 'x' } }, destination: 'https://example.com/q' },
];

function randomAddress(): string {
  const b = () => Math.floor(Math.random() * 223) + 1;
  return `${b()}.${b()}.${b()}.${b()}`;
}

interface Visit {
  request: Request;
  address: string;
}

/** `count` requests for `paths`: mixed agents, languages, referrers; four fifths of addresses from a pool of 1,000. */
function visits(paths: readonly string[], count: number): Visit[] {
  const pool = Array.from({ length: 1000 }, randomAddress);
  return Array.from({ length: count }, (_, i) => {
    const referrer = REFERRERS[i % REFERRERS.length]!;
    const headers: Record<string, string> = {
      'user-agent': AGENTS[i % AGENTS.length]!,
      'accept-language': LANGUAGES[i % LANGUAGES.length]!,
    };
    if (referrer) headers.referer = referrer;
    return {
      request: new Request(`https://sl.test/${paths[i % paths.length]}`, { headers }),
      address: i % 5 === 0 ? randomAddress() : pool[Math.floor(Math.random() * pool.length)]!,
    };
  });
}

type Redirect = ReturnType<typeof createRedirect>;

/** Times `visits` through `redirect` in batches of `batch`; returns the ns per redirect of each batch. */
function timeBatches(deps: Deps, redirect: Redirect, slugOf: (v: Visit) => string, list: Visit[], batch: number) {
  let address = '';
  const server: ServerLike = { requestIP: () => ({ address }) };
  const perRedirect: number[] = [];
  for (let from = 0; from + batch <= list.length; from += batch) {
    const start = Bun.nanoseconds();
    for (let i = from; i < from + batch; i++) {
      const v = list[i]!;
      address = v.address;
      redirect(v.request, server, slugOf(v), null);
    }
    perRedirect.push((Bun.nanoseconds() - start) / batch);
    deps.clicks.buffer.take(deps.clicks.buffer.length);
  }
  return perRedirect;
}

/** 15.6 KB of escapes no decoder can read, as a hostile client sends them. */
const BAD_ESCAPES = Array.from({ length: 3900 }, (_, i) => `%z${i % 10}`).join('&');

/** (d) and (e): alternating runs of an ordinary and a hostile request to the same link. */
function benchHostile(deps: Deps, redirect: Redirect): string[] {
  const slugOf = (v: Visit) => {
    const url = v.request.url;
    const end = url.indexOf('?');
    return url.slice('https://sl.test/'.length, end < 0 ? undefined : end);
  };
  const at = (path: string, agent: (i: number) => string) => (count: number) =>
    Array.from({ length: count }, (_, i) => ({
      request: new Request(`https://sl.test/${path}`, { headers: { 'user-agent': agent(i) } }),
      address: '192.0.2.1',
    }));
  const known = (i: number) => AGENTS[i % AGENTS.length]!;
  // Every agent different, 600 characters, most of it past what the parser reads.
  let fresh = 0;
  const invented = () => `${AGENTS[fresh % AGENTS.length]} ${'(x; y) '.repeat(60)}${fresh++}`;
  const cases = [
    ['(d) query rule + forwardQuery', at('hq?src=y&utm_term=a%20b&page=2', known), at(`hq?${BAD_ESCAPES}`, known)],
    ['(e) device rule', at('dev', known), at('dev', invented)],
  ] as const;
  const lines = ['| link | ordinary request | hostile request | ratio |', '|---|---|---|---|'];
  for (const [name, ordinary, hostile] of cases) {
    const sides: [number[], number[]] = [[], []];
    for (let r = 0; r < 6; r++)
      for (const [side, make] of [ordinary, hostile].entries())
        sides[side]!.push(...timeBatches(deps, redirect, slugOf, make(400), 20).slice(r === 0 ? 5 : 0));
    const [a, b] = sides.map(median) as [number, number];
    lines.push(`| ${name} | ${us(a)} | ${us(b)} | ${(b / a).toFixed(1)} |`);
  }
  return lines;
}

async function makeHostileLinks(deps: Deps): Promise<void> {
  const su = OPERATOR;
  await createLink(deps, su, {
    destination: 'https://example.org/landing',
    slug: 'hq',
    forwardQuery: true,
    rules: [{ when: { query: { src: 'x' } }, destination: 'https://example.com/x' }],
  } as never);
  await createLink(deps, su, {
    destination: 'https://example.org/landing',
    slug: 'dev',
    rules: [{ when: { device: ['tablet'] }, destination: 'https://example.com/t' }],
  } as never);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const us = (ns: number) => `${(ns / 1000).toFixed(2)} us`;

async function closeDeps(deps: Deps): Promise<void> {
  deps.linkIndex.stopLoading();
  deps.passwordVerifier.close();
  deps.exports.close();
  await deps.stores.close();
}

export interface RulesBenchResult {
  lines: string[];
}

/** Runs (a) to (e), or (d) and (e) alone; returns the report's lines (Markdown). */
export async function benchRules(links = 100_000, hostileOnly = false): Promise<RulesBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'slink-bench-rules-'));
  try {
    const deps = benchDeps(join(dir, 'rules.db'));
    const su = OPERATOR;
    const make = (slug: string, rules: unknown[]) =>
      createLink(deps, su, { destination: 'https://example.org/landing', slug, rules } as never);
    await make('plain', []);
    await make('five', FIVE_MISSES);
    await make('country', COUNTRY_MISS);
    await makeHostileLinks(deps);
    const redirect = createRedirect(deps);
    const lines: string[] = [];
    if (hostileOnly) {
      lines.push(...benchHostile(deps, redirect));
      await closeDeps(deps);
      return { lines };
    }
    const pathOf = (v: Visit) => v.request.url.slice('https://sl.test/'.length);

    // (a) and (b): alternating runs, so drift on a shared box hits both sides alike.
    const rounds = 6;
    const n = 20_000;
    const sides: Record<string, number[]> = { plain: [], five: [], country: [] };
    for (let r = 0; r < rounds; r++)
      for (const slug of ['plain', 'five', 'country'] as const)
        sides[slug]!.push(...timeBatches(deps, redirect, pathOf, visits([slug], n), 100).slice(r === 0 ? 50 : 0));
    const plain = median(sides.plain!);
    const five = median(sides.five!);
    const country = median(sides.country!);
    lines.push('| link | ns per redirect (median of 100-redirect batches) | added | ratio |', '|---|---|---|---|');
    lines.push(`| no rules | ${us(plain)} | | 1.00 |`);
    lines.push(`| (a) five rules, none matches | ${us(five)} | ${us(five - plain)} | ${(five / plain).toFixed(2)} |`);
    lines.push(
      `| (b) one country rule (geo lookup) | ${us(country)} | ${us(country - plain)} | ${(country / plain).toFixed(2)} |`,
    );

    // (c): many links, a quarter with rules, against the same number without.
    // Both sets written alike (10,000 a transaction, in slug-index order), the first with rules
    // on every fourth link from its insert, so that neither side's entries are scattered by
    // later rewrites.
    const withRules = await seedLinks(deps, links, (i) => ({
      destination: 'https://example.org/x',
      rules: i % 4 === 0 ? QUARTER_RULES : undefined,
    }));
    const without = await seedLinks(deps, links, () => ({ destination: 'https://example.org/y' }));
    await deps.linkIndex.loadAll();
    const shuffled = (slugs: string[]) => [...slugs].sort(() => Math.random() - 0.5);
    const rates: Record<string, number[]> = { none: [], quarter: [] };
    for (let r = 0; r < 4; r++)
      for (const [side, slugs] of [
        ['none', without],
        ['quarter', withRules],
      ] as const) {
        const list = visits(shuffled(slugs), links);
        const batches = timeBatches(deps, redirect, pathOf, list, 1000);
        rates[side]!.push(1e9 / (batches.reduce((a, b) => a + b, 0) / batches.length));
      }
    const none = median(rates.none!);
    const quarter = median(rates.quarter!);
    lines.push(
      '',
      `| (c) ${links.toLocaleString('en-US')} links | redirects/s (main thread, median of 4 runs) | ratio |`,
      '|---|---|---|',
    );
    lines.push(`| no rules | ${Math.round(none).toLocaleString('en-US')} | 1.00 |`);
    lines.push(
      `| a quarter with three rules | ${Math.round(quarter).toLocaleString('en-US')} | ${(quarter / none).toFixed(3)} |`,
    );
    lines.push('', ...benchHostile(deps, redirect));
    await closeDeps(deps);
    return { lines };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { links: { type: 'string', default: '100000' }, hostile: { type: 'boolean', default: false } },
  });
  const { lines } = await benchRules(Number(values.links), values.hostile);
  console.log(lines.join('\n'));
}
