/**
 * Clicks for the statistics pages, recorded through the real redirect (the short host, with
 * addresses in X-Forwarded-For: the app must trust one proxy hop, SLINK_TRUST_PROXY=1) and
 * written by an explicit flush. Addresses resolve in the bundled geo database to the country
 * and city noted beside them.
 */
import { expect } from 'bun:test';
import { click, flushOk, UA } from '../modules/clicks/support';
import { api, type TestApp } from './app';
import { pick, prng } from './random';

export const PLACES = {
  london: '81.2.69.142', // GB, London
  london2: '81.2.69.160',
  london3: '81.2.69.161',
  mountainView: '8.8.8.8', // US
  sydney: '1.1.1.1', // AU
  frankfurt: '2a00:1450:4001:80b::200e', // DE
  tokyo: '133.242.0.1', // JP
  paris: '62.4.0.1', // FR
  toronto: '104.16.0.1', // CA
  amsterdam: '193.0.6.139', // NL
  pune: '45.112.0.1', // IN
  saoPaulo: '200.160.2.3', // BR
  private: '10.1.2.3', // no country
} as const;

export async function createLink(t: TestApp, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/', ...body } });
  expect(res.status).toBe(201);
  return res.body.id;
}

export async function createVariant(t: TestApp, key: string, linkId: string, body: Record<string, unknown>) {
  const res = await api(t, 'POST', `/links/${linkId}/variants`, { key, body });
  expect(res.status).toBe(201);
}

export interface Visit {
  path: string;
  ip?: string;
  ua?: string;
  referer?: string;
  lang?: string;
  /** Sends Sec-GPC: 1. */
  gpc?: boolean;
}

/** Each visit through the short host (302 expected), then one flush. */
export async function visit(t: TestApp, visits: Visit[]): Promise<void> {
  for (const v of visits) expect(await click(t, v.path, v)).toBe(302);
  await flushOk(t);
}

const REFERRERS = [
  undefined,
  'https://news.ycombinator.com/item?id=1',
  'https://www.google.com/',
  'https://mail.google.com/',
  'https://t.co/abc',
  'https://blog.example.org/post',
];
const LANGS = ['en-GB,en;q=0.9', 'en-US', 'de-DE', 'fr-FR', 'ja-JP', 'pt-BR'];
const AGENTS = [UA.chromeWin, UA.safariIphone, UA.chromeAndroid, UA.firefoxLinux, UA.edgeMac, UA.safariIpad];
const DAY = 86_400_000;

/**
 * A busy workspace for screenshots: links with variants and UTM parameters, a few hundred
 * clicks spread over the last 14 days (the clock is moved back for each day and restored),
 * from a dozen countries, devices and referrers, and some bot hits. Deterministic.
 */
export async function seedBusyWorkspace(t: TestApp, key: string): Promise<string[]> {
  const sale = await createLink(t, key, {
    slug: 'spring-sale',
    title: 'Spring sale',
    params: { utm_source: 'newsletter', utm_medium: 'email', utm_campaign: 'spring' },
  });
  await createVariant(t, key, sale, { code: 'fb', params: { utm_source: 'facebook', utm_medium: 'social' } });
  await createVariant(t, key, sale, { code: 'ig', params: { utm_source: 'instagram', utm_medium: 'social' } });
  const docs = await createLink(t, key, { slug: 'docs', params: { ref: 'footer' } });
  const talk = await createLink(t, key, { slug: 'talk-2026' });
  const rand = prng(2026);
  const now = t.clock.now();
  const ips = Object.values(PLACES);
  for (let day = 13; day >= 0; day--) {
    t.clock.set(now - day * DAY);
    const visits: Visit[] = [];
    const count = 8 + Math.floor(rand() * 20) + (13 - day) * 2;
    for (let i = 0; i < count; i++) {
      const slug = pick(rand, ['spring-sale', 'spring-sale', 'spring-sale/fb', 'spring-sale/ig', 'docs', 'talk-2026']);
      // Now and then a variant code that names no variant (a typo, a deleted variant).
      const unknown = !slug.includes('/') && rand() < 0.04;
      visits.push({
        path: `/${slug}${unknown ? '/old' : ''}`,
        ip: pick(rand, ips),
        ua: rand() < 0.08 ? UA.googlebot : pick(rand, AGENTS),
        referer: pick(rand, REFERRERS),
        lang: pick(rand, LANGS),
      });
    }
    await visit(t, visits);
  }
  t.clock.set(now);
  return [sale, docs, talk];
}
