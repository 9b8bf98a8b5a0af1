/**
 * Shared helpers of the click pipeline tests: a test app with a superuser write key, links and
 * variants through the API, clicks through the real redirect, raw SQL reads, rollup buckets
 * decoded (and the same recomputed from the raw clicks), and a second app on the same database
 * file (a restart).
 */
import { expect } from 'bun:test';
import { createApp } from '../../../src/app';
import { createDeps } from '../../../src/compose/deps';
import type { Engine } from '../../../src/db/address';
import { openDatabase } from '../../../src/db/client';
import { migrateDatabase } from '../../../src/db/migrate';
import type { Logger } from '../../../src/lib/log';
import { decodeCounts, encodeCounts, forEachCount } from '../../../src/modules/rollups/rollup-codec';
import type { Grain } from '../../../src/modules/rollups/rollups';
import { api, makeKey, makeTestApp, type TestApp } from '../../helpers/app';
import { queryRaw } from '../../helpers/raw-clicks';

export const SHORT = 'https://sl.test';
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** User agents with the verdict the bot rule (docs/behaviour.md, "Humans and bots") gives them. */
export const UA = {
  chromeWin:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  safariIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  firefoxLinux: 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
  chromeAndroid:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  safariIpad:
    'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  edgeMac:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  curl: 'curl/8.4.0',
  facebook: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
} as const;

export interface Ctx {
  t: TestApp;
  key: string;
}

export async function setup(env: Record<string, string> = {}, engine: Engine = 'sqlite'): Promise<Ctx> {
  const t = await makeTestApp({ SLINK_TRUST_PROXY: '1', ...env }, { engine });
  const { key } = await makeKey(t, 'write', { superuser: true });
  return { t, key };
}

export async function createLink(c: Ctx, body: Record<string, unknown>): Promise<any> {
  const res = await api(c.t, 'POST', '/links', {
    key: c.key,
    body: { destination: 'https://example.com/landing', ...body },
  });
  expect(res.status).toBe(201);
  return res.body;
}

export async function createVariant(c: Ctx, linkId: string, body: Record<string, unknown>): Promise<any> {
  const res = await api(c.t, 'POST', `/links/${linkId}/variants`, { key: c.key, body });
  expect(res.status).toBe(201);
  return res.body;
}

export async function getLink(c: Ctx, id: string): Promise<any> {
  const res = await api(c.t, 'GET', `/links/${id}`, { key: c.key });
  expect(res.status).toBe(200);
  return res.body;
}

export interface ClickOptions {
  /** null: no User-Agent header at all. */
  ua?: string | null;
  /** null: no X-Forwarded-For (through app.handle there is no socket, so no address). */
  ip?: string | null;
  referer?: string | null;
  lang?: string | null;
  method?: 'GET' | 'HEAD';
  /** Sends Sec-GPC: 1 (opted out by default: SLINK_HONOR_GPC). */
  gpc?: boolean;
}

export function clickRequest(path: string, o: ClickOptions = {}, origin = SHORT): Request {
  const headers: Record<string, string> = {};
  const ua = o.ua === undefined ? UA.chromeWin : o.ua;
  if (ua !== null) headers['user-agent'] = ua;
  if (o.ip != null) headers['x-forwarded-for'] = o.ip;
  if (o.referer != null) headers.referer = o.referer;
  if (o.lang != null) headers['accept-language'] = o.lang;
  if (o.gpc) headers['sec-gpc'] = '1';
  return new Request(`${origin}${path}`, { method: o.method ?? 'GET', headers });
}

/** One click through the real app (the redirect hook); returns the status. */
export async function click(t: TestApp, path: string, o: ClickOptions = {}): Promise<number> {
  const res = await t.app.handle(clickRequest(path, o));
  await res.arrayBuffer();
  return res.status;
}

/** Writes every buffered click now and expects the write to succeed. */
export async function flushOk(t: TestApp): Promise<void> {
  expect(await t.deps.clicks.flusher.flush()).toBe(true);
  expect(t.deps.clicks.buffer.length).toBe(0);
}

/** A query's rows; `raw_clicks` is the stored raw clicks (test/helpers/raw-clicks.ts). */
export function rows<T = any>(t: TestApp, sql: string, ...params: (string | number | null)[]): T[] {
  return queryRaw(t.deps.db.$client, sql).all(...(params as never[])) as T[];
}

/** The timestamps of the stored raw clicks in the order they were written. */
export function writtenTimes(t: TestApp): number[] {
  return rows<{ timestamp: number }>(t, 'SELECT timestamp FROM raw_clicks ORDER BY id').map((r) => r.timestamp);
}

export function one<T = any>(t: TestApp, sql: string, ...params: (string | number | null)[]): T {
  const all = rows<T>(t, sql, ...params);
  expect(all).toHaveLength(1);
  return all[0]!;
}

/**
 * A restart: a second connection, createDeps (slug index and counters loaded from the
 * database) and app on the same file with the same clock. Its close() only closes its
 * connection; the original TestApp owns the folder.
 */
export async function reopen(t: TestApp): Promise<TestApp> {
  const db = openDatabase(t.deps.config.dbPath);
  migrateDatabase(db);
  const errors: string[] = [];
  const log: Logger = { info: () => {}, error: (m, e) => errors.push(`${m} ${String(e)}`) };
  const deps = createDeps({ db, config: t.deps.config, clock: t.clock, log });
  await deps.linksLoaded;
  return { app: createApp(deps), deps, clock: t.clock, dir: t.dir, errors, close: async () => db.$client.close() };
}

export { pick, prng } from '../../helpers/random';

// ---------------------------------------------------------------------------------------
// Rollup buckets, decoded, and the same recomputed from the raw clicks.

/** One bucket's totals, as stored (`bot` 0/1). */
export interface BucketTotal {
  scope: string;
  grain: Grain;
  start: number;
  bot: number;
  clicks: number;
  uniques: number;
}

/** One breakdown count of one bucket, its value id resolved through rollup_values. */
export interface BucketRow {
  scope: string;
  grain: Grain;
  start: number;
  bot: number;
  dim: string;
  key: string;
  value: string;
  clicks: number;
}

export interface DecodedBuckets {
  totals: BucketTotal[];
  rows: BucketRow[];
}

/** Which buckets: a scope (a link id, or '' for the workspace) and a grain; omitted = all. */
export interface BucketFilter {
  scope?: string;
  grain?: Grain;
}

const GRAIN_MS: Record<Grain, number> = { hour: HOUR, day: DAY };

/** The workspace's scope in named_buckets (a link's is its id). */
export const WORKSPACE = '';

function cmp(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function byBucket(a: BucketTotal | BucketRow, b: BucketTotal | BucketRow): number {
  return cmp(a.scope, b.scope) || cmp(a.grain, b.grain) || cmp(a.start, b.start) || cmp(a.bot, b.bot);
}

function byRow(a: BucketRow, b: BucketRow): number {
  return byBucket(a, b) || cmp(a.dim, b.dim) || cmp(a.key, b.key) || cmp(a.value, b.value);
}

function bucketWhere(filter: BucketFilter): { where: string; params: string[] } {
  const parts: string[] = [];
  const params: string[] = [];
  if (filter.scope !== undefined) {
    parts.push('scope = ?');
    params.push(filter.scope);
  }
  if (filter.grain !== undefined) {
    parts.push('grain = ?');
    params.push(filter.grain);
  }
  return { where: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

/**
 * Reads the rollup buckets (named_buckets) as the statistics see them and decodes each bucket's
 * packed (value id, clicks) pairs into rows named by rollup_values, sorted by (scope, grain,
 * start, bot[, dim, key, value]). A link's days from its day mark on (rollups/link-days.ts) are
 * its hour buckets summed, as the statistics read them; a stored day bucket there is ignored.
 * Checks the storage invariants on the way: ids in increasing order (none twice), the canonical
 * encoding, no zero count, every id known, no empty bucket, starts on the grain, uniques of
 * humans only and never above clicks.
 */
export function readBuckets(t: TestApp, filter: BucketFilter = {}): DecodedBuckets {
  const names = new Map(
    rows<{ id: number; dim: string; key: string; value: string }>(
      t,
      'SELECT id, dim, key, value FROM rollup_values',
    ).map((r) => [r.id, r]),
  );
  const marks = new Map(
    rows<{ scope: string; mark: number }>(
      t,
      'SELECT v.value AS scope, m.days_before AS mark FROM rollup_marks m JOIN rollup_values v ON v.id = m.scope',
    ).map((r) => [r.scope, r.mark]),
  );
  // Every grain of the scope: a link's later days are made from its hours.
  const { where, params } = bucketWhere({ scope: filter.scope });
  const stored = rows<BucketTotal & { data: Uint8Array }>(
    t,
    `SELECT scope, grain, start, bot, clicks, uniques, data FROM named_buckets ${where}`,
    ...params,
  );
  const buckets: { total: BucketTotal; counts: Map<number, number> }[] = [];
  const fromHours = new Map<string, { total: BucketTotal; counts: Map<number, number> }>();
  for (const { data, ...total } of stored) {
    const at = `${total.scope}|${total.grain}|${total.start}|${total.bot}`;
    expect({ at, grain: ['hour', 'day'].includes(total.grain), bot: [0, 1].includes(total.bot) }).toEqual({
      at,
      grain: true,
      bot: true,
    });
    expect({ at, offset: total.start % GRAIN_MS[total.grain] }).toEqual({ at, offset: 0 });
    expect({
      at,
      positive: total.clicks > 0,
      uniquesInRange: total.uniques >= 0 && total.uniques <= total.clicks,
    }).toEqual({ at, positive: true, uniquesInRange: true });
    if (total.bot === 1) expect({ at, uniques: total.uniques }).toEqual({ at, uniques: 0 });
    // Pairs in strictly increasing id order (so no id twice), and the blob is exactly what
    // encoding the decoded counts gives back (no trailing byte, no unterminated varint).
    const ids: number[] = [];
    forEachCount(data, (id) => ids.push(id));
    expect({ at, increasing: ids.every((id, i) => i === 0 || id > ids[i - 1]!) }).toEqual({ at, increasing: true });
    const counts = decodeCounts(data);
    expect({ at, canonical: Buffer.from(encodeCounts(counts)).equals(Buffer.from(data)) }).toEqual({
      at,
      canonical: true,
    });
    const mark = total.scope === WORKSPACE ? Number.POSITIVE_INFINITY : (marks.get(total.scope) ?? 0);
    const day = Math.floor(total.start / DAY) * DAY;
    if (total.grain === 'day' && total.start >= mark) continue;
    buckets.push({ total, counts });
    if (total.grain === 'hour' && day >= mark) {
      const key = `${total.scope}|${day}|${total.bot}`;
      let d = fromHours.get(key);
      if (!d) {
        d = { total: { ...total, grain: 'day', start: day, clicks: 0, uniques: 0 }, counts: new Map() };
        fromHours.set(key, d);
      }
      d.total.clicks += total.clicks;
      d.total.uniques += total.uniques;
      for (const [id, n] of counts) d.counts.set(id, (d.counts.get(id) ?? 0) + n);
    }
  }
  buckets.push(...fromHours.values());
  const totals: BucketTotal[] = [];
  const out: BucketRow[] = [];
  for (const { total, counts } of buckets) {
    if (filter.grain !== undefined && total.grain !== filter.grain) continue;
    const at = `${total.scope}|${total.grain}|${total.start}|${total.bot}`;
    totals.push(total);
    for (const [id, clicks] of counts) {
      const name = names.get(id);
      expect({ at, id, known: name !== undefined, clicks: clicks > 0 }).toEqual({ at, id, known: true, clicks: true });
      const { scope, grain, start, bot } = total;
      out.push({ scope, grain, start, bot, dim: name!.dim, key: name!.key, value: name!.value, clicks });
    }
  }
  return { totals: totals.sort(byBucket), rows: out.sort(byRow) };
}

/** A breakdown of the raw clicks: its key and value expressions over `c` (and `j`, json_each of the params). */
const RAW_DIMS: { dim: string; key: string; value: string; from?: string; where?: string; workspaceOnly?: true }[] = [
  { dim: 'country', key: "''", value: "coalesce(c.country, '')" },
  { dim: 'city', key: "coalesce(c.country, '')", value: "coalesce(c.city, '')" },
  { dim: 'device', key: "''", value: "coalesce(c.device, '')" },
  { dim: 'os', key: "''", value: "coalesce(c.os, '')" },
  { dim: 'browser', key: "''", value: "coalesce(c.browser, '')" },
  { dim: 'referrer', key: "''", value: "coalesce(c.referrer, '')" },
  { dim: 'trafficType', key: "''", value: "coalesce(c.traffic_type, '')" },
  { dim: 'language', key: "''", value: "coalesce(c.language, '')" },
  { dim: 'utmSource', key: "''", value: 'j.value', from: ', json_each(c.params) j', where: "j.key = 'utm_source'" },
  { dim: 'utmMedium', key: "''", value: 'j.value', from: ', json_each(c.params) j', where: "j.key = 'utm_medium'" },
  { dim: 'utmCampaign', key: "''", value: 'j.value', from: ', json_each(c.params) j', where: "j.key = 'utm_campaign'" },
  { dim: 'variant', key: "coalesce(c.variant_id, '')", value: 'c.variant_code', where: 'c.variant_code IS NOT NULL' },
  { dim: 'rule', key: "''", value: 'CAST(c.rule AS TEXT)', where: 'c.rule IS NOT NULL' },
  {
    dim: 'param',
    key: 'j.key',
    value: 'j.value',
    from: ', json_each(c.params) j',
    where: "j.key NOT IN ('utm_source', 'utm_medium', 'utm_campaign')",
  },
  { dim: 'privacy', key: "''", value: "'optedOut'", where: 'c.opted_out = 1' },
  { dim: 'link', key: "''", value: 'c.link_id', workspaceOnly: true },
];

/**
 * What the buckets must hold, recomputed from the raw `clicks` table alone: every click counted
 * in its link's and the workspace's ('') hour and day, clicks and uniques (first visit of the
 * day, humans only) per bucket, and per bucket every breakdown value's clicks (`link` in
 * workspace buckets only). Same shape and order as readBuckets.
 */
export function bucketsFromRawClicks(t: TestApp, filter: BucketFilter = {}): DecodedBuckets {
  const totals: BucketTotal[] = [];
  const out: BucketRow[] = [];
  for (const grain of filter.grain ? [filter.grain] : (['hour', 'day'] as const)) {
    const ms = GRAIN_MS[grain];
    const workspaces = filter.scope === undefined ? [false, true] : [filter.scope === ''];
    for (const workspace of workspaces) {
      const scope = workspace ? "''" : 'c.link_id';
      const linkOnly = !workspace && filter.scope !== undefined ? 'c.link_id = ?' : '1';
      const params = linkOnly === '1' ? [] : [filter.scope!];
      totals.push(
        ...rows<BucketTotal>(
          t,
          `SELECT ${scope} AS scope, '${grain}' AS grain, (c.timestamp / ${ms}) * ${ms} AS start, c.bot AS bot,
                  count(*) AS clicks, sum(CASE WHEN c.bot = 0 THEN c.first_of_day ELSE 0 END) AS uniques
           FROM raw_clicks c WHERE ${linkOnly} GROUP BY 1, 2, 3, 4`,
          ...params,
        ),
      );
      for (const d of RAW_DIMS) {
        if (d.workspaceOnly && !workspace) continue;
        out.push(
          ...rows<BucketRow>(
            t,
            `SELECT ${scope} AS scope, '${grain}' AS grain, (c.timestamp / ${ms}) * ${ms} AS start, c.bot AS bot,
                    '${d.dim}' AS dim, ${d.key} AS key, ${d.value} AS value, count(*) AS clicks
             FROM raw_clicks c${d.from ?? ''} WHERE ${linkOnly} AND ${d.where ?? '1'} GROUP BY 1, 2, 3, 4, 5, 6, 7`,
            ...params,
          ),
        );
      }
    }
  }
  return { totals: totals.sort(byBucket), rows: out.sort(byRow) };
}

/** Every bucket (all scopes, both grains) equals its recomputation from the raw clicks. */
export function expectBucketsMatchRawClicks(t: TestApp): DecodedBuckets {
  const actual = readBuckets(t);
  expect(actual).toEqual(bucketsFromRawClicks(t));
  return actual;
}
