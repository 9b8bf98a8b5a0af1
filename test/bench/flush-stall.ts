/**
 * Flush stall benchmark (docs/performance.md, "Click flush"): clicks arrive at 20,000/s through the real
 * redirect function of a real app (real SQLite file, bundled geo database, varied agents,
 * addresses, links and variants) while the flusher drains every SLINK_FLUSH_MS. A 1 ms probe
 * timer measures how late the event loop runs, i.e. how long anything (a redirect) would wait.
 *
 * Rows, all measured in the same run on the same data:
 * - floor: the load generator alone (it shares the event loop), clicks thrown away;
 * - baseline: the same flusher writing inline, on the main thread (what tests use);
 * - slink: the server's configuration, enrichment and writes in the writer Worker.
 * The event-loop stall of the server's flush is reported as a ratio to the baseline.
 *
 *   bun run test/bench/flush-stall.ts [--rate 20000] [--seconds 6] [--links 2000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../../src/app';
import { createDeps, type Deps } from '../../src/compose/deps';
import { loadConfig } from '../../src/config';
import { openDatabase } from '../../src/db/client';
import { migrateDatabase } from '../../src/db/migrate';
import { systemClock } from '../../src/lib/clock';
import { OPERATOR } from '../../src/modules/access/public';
import { countClicks } from '../../src/modules/clicks/sqlite/raw-read';
import { createLink } from '../../src/modules/links/service';
import { createVariant } from '../../src/modules/variants/service';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '20000' },
    seconds: { type: 'string', default: '6' },
    links: { type: 'string', default: '2000' },
  },
});
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const LINKS = Number(values.links);

const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
  'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  'curl/8.4.0',
  'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
];
const REFERRERS = [
  null,
  'https://www.google.com/',
  'https://t.co/x',
  'https://news.ycombinator.com/',
  'https://mail.google.com/',
  'https://blog.example.org/post',
];
const LANGS = ['en-US,en;q=0.9', 'de-DE,de;q=0.8', 'fr-FR', null, 'ja'];

type Mode = 'none' | 'inline' | 'worker';

async function setup(
  mode: Mode,
): Promise<{ deps: Deps; handle: (r: Request) => Promise<Response>; slugs: string[]; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'slink-bench-'));
  const config = loadConfig({
    SLINK_DB: join(dir, 'bench.db'),
    SLINK_TRUST_PROXY: '1',
    SLINK_SHORT_HOST: 'https://sl.bench',
    SLINK_APP_HOST: 'https://sl.bench',
  });
  const db = openDatabase(config.dbPath);
  migrateDatabase(db);
  const deps = createDeps(
    { db, config, clock: systemClock, log: { info: () => {}, error: (m, e) => console.error(m, e) } },
    { worker: mode === 'worker' },
  );
  const slugs: string[] = [];
  for (let i = 0; i < LINKS; i++) {
    const link = await createLink(deps, OPERATOR, {
      destination: `https://example.com/p/${i}?utm_source=news&utm_medium=email`,
      slug: `b${i}`,
      params: { campaign_id: String(i % 17) },
    });
    if (i % 4 === 0) await createVariant(deps, OPERATOR, link.id, { code: 'tw', params: { utm_source: 'twitter' } });
    slugs.push(link.slug);
  }
  const app = createApp(deps);
  return { deps, handle: (r) => app.handle(r), slugs, dir };
}

function randomAddress(i: number): string {
  // Mostly repeat visitors (a cached lookup), a fifth new addresses (a real geo lookup).
  const n = i % 5 === 0 ? (Math.random() * 0xdfffffff) >>> 0 : (i * 2654435761) % 50_000;
  return `${(n >>> 24) & 255 || 1}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

function makeRequest(slugs: string[], i: number): Request {
  const slug = slugs[i % slugs.length]!;
  const path = i % 7 === 0 ? `/${slug}/tw` : i % 31 === 0 ? `/${slug}/zz` : `/${slug}`;
  const headers: Record<string, string> = {
    'user-agent': AGENTS[i % AGENTS.length]!,
    'x-forwarded-for': randomAddress(i),
  };
  const ref = REFERRERS[i % REFERRERS.length];
  if (ref) headers.referer = ref;
  const lang = LANGS[i % LANGS.length];
  if (lang) headers['accept-language'] = lang;
  return new Request(`https://sl.bench${path}`, { headers });
}

interface Result {
  lags: number[];
  clicks: number;
  stored: number;
}

/** Drives RATE clicks/s for SECONDS with a flush every second; probes event-loop lag. */
async function drive(label: string, mode: Mode): Promise<Result> {
  const { deps, handle, slugs, dir } = await setup(mode);
  await deps.clicks.geoSource;
  const lags: number[] = [];
  let expected = performance.now() + 1;
  const probe = setInterval(() => {
    const now = performance.now();
    lags.push(Math.max(0, now - expected));
    expected = now + 1;
  }, 1);
  const flushTimer = setInterval(() => {
    if (mode === 'none') deps.clicks.buffer.take(deps.clicks.buffer.length);
    else void deps.clicks.flusher.flush();
  }, 1000);
  const started = performance.now();
  let sent = 0;
  while (performance.now() - started < SECONDS * 1000) {
    const due = Math.floor(((performance.now() - started) / 1000) * RATE);
    const batch: Promise<Response>[] = [];
    while (sent < due) batch.push(handle(makeRequest(slugs, sent++)));
    await Promise.all(batch);
    await new Promise<void>((resolve) => setTimeout(resolve, 1));
  }
  clearInterval(flushTimer);
  clearInterval(probe);
  if (mode === 'none') deps.clicks.buffer.take(deps.clicks.buffer.length);
  await deps.clicks.flusher.stop();
  const stored = countClicks(deps.db.$client);
  const longest = deps.clicks.flusher.stats.longestBatchMs;
  const step = deps.clicks.flusher.stats.longestStepMs;
  deps.db.$client.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(
    `${label}: ${sent} clicks in ${SECONDS} s, ${stored} stored, longest batch ${longest.toFixed(1)} ms, longest step on the event loop ${step.toFixed(1)} ms`,
  );
  return { lags, clicks: sent, stored };
}

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const idle = await drive('floor (no writes)', 'none');
const inline = await drive('baseline (inline flush)', 'inline');
const worker = await drive('slink (writer Worker)', 'worker');

const row = (name: string, r: Result) =>
  `| ${name} | ${r.clicks} | ${r.stored} | ${pct(r.lags, 50).toFixed(2)} | ${pct(r.lags, 99).toFixed(2)} | ${Math.max(...r.lags).toFixed(2)} |`;
console.log(`\nFlush stall at ${RATE} clicks/s for ${SECONDS} s (event-loop lag in ms, 1 ms probe)\n`);
console.log('| flush | clicks | stored | p50 lag | p99 lag | max lag |\n|---|---|---|---|---|---|');
console.log(row('floor: generator only, no writes', idle));
console.log(row('baseline: inline flush on the event loop', inline));
console.log(row('slink: writer Worker', worker));
const ratio = Math.max(...worker.lags) / Math.max(...inline.lags);
const ratio99 = pct(worker.lags, 99) / pct(inline.lags, 99);
console.log(`\nslink vs baseline: max stall ${ratio.toFixed(3)}x, p99 ${ratio99.toFixed(3)}x`);
