/**
 * Shared helpers of the click pipeline tests: a test app with a superuser write key, links and
 * variants through the API, clicks through the real redirect, raw SQL reads, and a second app
 * on the same database file (a restart).
 */
import { expect } from 'bun:test';
import { createApp } from '../../../src/app';
import { openDatabase } from '../../../src/db/client';
import { migrateDatabase } from '../../../src/db/migrate';
import { createDeps, type Logger } from '../../../src/deps';
import { api, makeKey, makeTestApp, type TestApp } from '../../helpers/app';

export const SHORT = 'https://sl.test';
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** User agents with the verdict the CONTRACT's bot rule gives them. */
export const UA = {
  chromeWin: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  safariIphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  firefoxLinux: 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
  chromeAndroid: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  safariIpad: 'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  edgeMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  curl: 'curl/8.4.0',
  facebook: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
} as const;

export interface Ctx {
  t: TestApp;
  key: string;
}

export async function setup(env: Record<string, string> = {}): Promise<Ctx> {
  const t = makeTestApp({ SLINK_TRUST_PROXY: '1', ...env });
  const { key } = await makeKey(t, 'write', { superuser: true });
  return { t, key };
}

export async function createLink(c: Ctx, body: Record<string, unknown>): Promise<any> {
  const res = await api(c.t, 'POST', '/links', { key: c.key, body: { destination: 'https://example.com/landing', ...body } });
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
}

export function clickRequest(path: string, o: ClickOptions = {}, origin = SHORT): Request {
  const headers: Record<string, string> = {};
  const ua = o.ua === undefined ? UA.chromeWin : o.ua;
  if (ua !== null) headers['user-agent'] = ua;
  if (o.ip != null) headers['x-forwarded-for'] = o.ip;
  if (o.referer != null) headers.referer = o.referer;
  if (o.lang != null) headers['accept-language'] = o.lang;
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

export function rows<T = any>(t: TestApp, sql: string, ...params: (string | number | null)[]): T[] {
  return t.deps.db.$client.query(sql).all(...(params as never[])) as T[];
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
export function reopen(t: TestApp): TestApp {
  const db = openDatabase(t.deps.config.dbPath);
  migrateDatabase(db);
  const errors: string[] = [];
  const log: Logger = { info: () => {}, error: (m, e) => errors.push(`${m} ${String(e)}`) };
  const deps = createDeps({ db, config: t.deps.config, clock: t.clock, log });
  return { app: createApp(deps), deps, clock: t.clock, dir: t.dir, errors, close: () => db.$client.close() };
}

/** Deterministic pseudo-random numbers (mulberry32), so a failing run can be replayed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)]!;
}
