/**
 * `bun run bench:dashboard [-- --runs 15 --links 100000]`: the dashboard's budget.
 *
 * 1. Its JavaScript, gzipped, per file and in total, against the 150 KB budget.
 * 2. The links page on a database of 100,000 links (a third with a title and utm params, a
 *    quarter tagged, a fifth in one of five projects) and, as the baseline from the same run,
 *    on an empty database: the real server (`bun src/index.ts serve`) started on the file, a
 *    real session, Chromium loading /app until the first page of links is rendered and
 *    `New link` is enabled (dashboard-load.ts), cold and warm, median of --runs; and the
 *    server's own time for the calls the page makes.
 * Prints the tables and writes them to test/bench/results-dashboard.md.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Cookie } from 'playwright-core';
import { buildDashboard, JS_BUDGET_GZIP } from '../../scripts/build-dashboard';
import { OPERATOR } from '../../src/modules/access/public';
import { createAccount } from '../../src/modules/auth/accounts';
import { createProject } from '../../src/modules/projects/service';
import { launchBrowser } from '../helpers/browser';
import { BUN, cleanEnv, freePort, ROOT, start, waitForLog, waitHealthy } from '../helpers/proc';
import { coldLoad, type Load, median, warmLoader } from './dashboard-load';
import { benchDeps, NO_PARAMS, seedLinks } from './seed-links';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '15' }, links: { type: 'string', default: '100000' } },
});
const RUNS = Number(values.runs);
const LINKS = Number(values.links);
const EMAIL = 'bench@example.com';
const PASSWORD = 'a bench password';
const out: string[] = [];
const say = (line = '') => {
  console.log(line);
  out.push(line);
};
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const ms = (n: number) => `${n.toFixed(n < 10 ? 1 : 0)} ms`;

// ---- 1. JavaScript budget
await buildDashboard({ ifStale: true });
const { ASSETS } = await import('../../src/modules/dashboard/assets.gen');
say('| file | size | gzipped |');
say('|---|---|---|');
let total = 0;
for (const [name, text] of Object.entries(ASSETS).filter(([n]) => n.endsWith('.js'))) {
  const gz = Bun.gzipSync(text).length;
  total += gz;
  say(`| ${name} | ${kb(text.length)} | ${kb(gz)} |`);
}
say(
  `| JavaScript in total | | ${kb(total)} of ${kb(JS_BUDGET_GZIP)} (${((100 * total) / JS_BUDGET_GZIP).toFixed(0)}%) |`,
);
say();

// ---- 2. The links page
async function seed(dbPath: string, count: number): Promise<void> {
  const deps = benchDeps(dbPath);
  const projects: string[] = [];
  for (const name of ['Spring', 'Summer', 'Docs', 'Blog', 'Ads'])
    projects.push((await createProject(deps, OPERATOR, { name })).id);
  await seedLinks(deps, count, (i) => ({
    destination: `https://www.example.org/articles/${i}?ref=list`,
    title: i % 3 === 0 ? `Article ${i}` : null,
    params: i % 3 === 0 ? { utm_source: 'newsletter', utm_campaign: `c${i % 40}` } : NO_PARAMS,
    tags: i % 4 === 0 ? [`tag-${i % 20}`] : [],
    projectId: i % 5 === 0 ? projects[i % 5]! : null,
  }));
  deps.exports.close();
  deps.db.$client.close();
}

/** The server's own time for a GET, median of `n`, measured from this process over loopback. */
async function serverTime(url: string, cookie: string, n = 30): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n + 3; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers: { cookie } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    if (i >= 3) times.push(performance.now() - t);
  }
  return median(times);
}

interface Served {
  label: string;
  url: string;
  cookie: Cookie;
  calls: [string, number][];
  cold: Load[];
  warm: Load[];
  stop(): Promise<void>;
}

/** Seeds a database, starts the real server on it and signs in; the calls' server time too. */
async function serve(label: string, count: number): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), 'slink-bench-dash-'));
  const dbPath = join(dir, 'slink.db');
  const t = performance.now();
  await seed(dbPath, count);
  const deps = benchDeps(dbPath);
  await createAccount(deps, { email: EMAIL, password: PASSWORD, superuser: true });
  deps.db.$client.close();
  console.log(`${label}: seeded in ${ms(performance.now() - t)}`);
  const port = freePort();
  const origin = `http://127.0.0.1:${port}`;
  const env = { SLINK_DB: dbPath, SLINK_PORT: String(port), SLINK_HOSTNAME: '127.0.0.1', SLINK_SHORT_HOST: origin };
  const server = start([BUN, 'src/index.ts', 'serve'], port, {
    cwd: ROOT,
    env: cleanEnv({ ...env, SLINK_RATE_LIMIT: '1000000' }),
  });
  const stop = async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitHealthy(server, 60_000);
    await waitForLog(server, /\d+ links in memory/, 60_000);
    const signIn = await fetch(`${origin}/api/app/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    const pair = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    const [name, value] = pair.split('=') as [string, string];
    const cookie: Cookie = {
      name,
      value,
      domain: '127.0.0.1',
      path: '/',
      expires: -1,
      httpOnly: true,
      secure: false,
      sameSite: 'Lax',
    };
    const calls: [string, number][] = [];
    for (const path of ['/api/app/session', '/api/v1/links?limit=50', '/api/v1/links/tags', '/api/v1/projects']) {
      calls.push([`GET ${path}`, await serverTime(`${origin}${path}`, pair)]);
    }
    return { label, url: `${origin}/app`, cookie, calls, cold: [], warm: [], stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

const rows = [await serve('empty database', 0), await serve(`${LINKS.toLocaleString('en')} links`, LINKS)];
const browser = await launchBrowser();
try {
  // Alternating between the two databases, so both see the same state of the machine.
  for (const row of rows) await coldLoad(browser, row.cookie, row.url);
  for (let i = 0; i < RUNS; i++) for (const row of rows) row.cold.push(await coldLoad(browser, row.cookie, row.url));
  const warm = await Promise.all(rows.map((row) => warmLoader(browser, row.cookie, row.url)));
  for (let i = 0; i < RUNS; i++) for (const [j, row] of rows.entries()) row.warm.push(await warm[j]!.load());
  for (const w of warm) await w.close();
} finally {
  await browser.close();
  for (const row of rows) await row.stop();
}

say(`Links page usable (first page rendered, New link enabled), median of ${RUNS}, ms from navigation start:`);
say();
say('| database | load | usable | script loaded | GET /api/v1/links sent | answered | rendered after the answer |');
say('|---|---|---|---|---|---|---|');
for (const row of rows) {
  for (const [kind, loads] of [
    ['cold', row.cold],
    ['warm', row.warm],
  ] as const) {
    const m = (f: (l: Load) => number) => median(loads.map(f));
    say(
      `| ${row.label} | ${kind} | ${ms(m((l) => l.ready))} | ${ms(m((l) => l.script))} | ${ms(m((l) => l.linksSent))} | ${ms(m((l) => l.linksAnswered))} | ${ms(m((l) => l.ready - l.linksAnswered))} |`,
    );
  }
}
say();
say('Server time of the calls the page makes (median of 30, from a client on loopback):');
say();
say(`| call | ${rows.map((r) => r.label).join(' | ')} |`);
say(`|---|${rows.map(() => '---').join('|')}|`);
for (let i = 0; i < rows[0]!.calls.length; i++) {
  say(`| ${rows[0]!.calls[i]![0]} | ${rows.map((r) => ms(r.calls[i]![1])).join(' | ')} |`);
}
writeFileSync(join(import.meta.dir, 'results-dashboard.md'), `${out.join('\n')}\n`);
