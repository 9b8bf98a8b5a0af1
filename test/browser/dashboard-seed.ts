/**
 * What the dashboard's page tests seed before opening a page: a link with everything a page can
 * show (title, tags, a project, params, a variant, human and bot clicks with referrers), an API
 * key, a second session. The texts come from a SeedText, so the same pages are checked with
 * ordinary words (accessibility, layout) and with markup payloads (XSS).
 */
import { expect } from 'bun:test';
import type { Response as PlaywrightResponse } from 'playwright-core';
import { createApiKey } from '../../src/modules/auth/keys';
import { api, makeKey } from '../helpers/app';
import type { OfflinePage } from '../helpers/browser';
import { dash, PASSWORD } from '../helpers/dashboard';
import { type Dashboard, offlinePage, realSession } from '../helpers/dashboard-browser';
import { DESKTOP_CHROME } from '../helpers/dashboard-process';
import type { DashboardPage } from './dashboard-pages';

export interface SeedText {
  title: string;
  tag: string;
  project: string;
  paramKey: string;
  paramValue: string;
  /** Appended to https://example.com/ as the destination's path and query. */
  destinationPath: string;
  keyName: string;
  /** The user agent of a second session (shown on the sessions page) and of a click. */
  userAgent: string;
  /** The Referer of a click. */
  referrer: string;
}

export const PLAIN_TEXT: SeedText = {
  title: 'Spring sale',
  tag: 'spring',
  project: 'Launch',
  paramKey: 'ref',
  paramValue: 'newsletter',
  destinationPath: 'pricing?plan=pro',
  keyName: 'deploy script',
  userAgent: DESKTOP_CHROME,
  referrer: 'https://news.example.org/item?id=1',
};

export interface SeededLink {
  id: string;
  slug: string;
}

export interface Seed {
  d: Dashboard;
  /** A write key of the account the page is opened as. */
  key: string;
  email: string;
  text: SeedText;
  /** A link with all of the above, clicked (made at the first call, then the same one). */
  link(): Promise<SeededLink>;
  /** An API key of the account named `text.keyName`. */
  apiKey(): Promise<void>;
  /** Another session of the account, signed in with `text.userAgent`. */
  otherSession(): Promise<void>;
  /** A webhook described as `text.keyName` (to a name that never resolves); its id. */
  webhook(): Promise<string>;
}

let projects = 0;

async function seedLink(d: Dashboard, key: string, text: SeedText): Promise<SeededLink> {
  const project = await api(d.t, 'POST', '/projects', { key, body: { name: `${text.project} ${++projects}` } });
  expect(project.status).toBe(201);
  const created = await api(d.t, 'POST', '/links', {
    key,
    body: {
      destination: `https://example.com/${text.destinationPath}`,
      title: text.title,
      tags: [text.tag, 'seeded'],
      projectId: project.body.id,
      params: { [text.paramKey]: text.paramValue },
    },
  });
  expect(created.status).toBe(201);
  const { id, slug } = created.body as SeededLink;
  const variant = await api(d.t, 'POST', `/links/${id}/variants`, {
    key,
    body: { code: 'promo', params: { [text.paramKey]: text.paramValue } },
  });
  expect(variant.status).toBe(201);
  // Clicks as the short host receives them: a person's, one through the variant and an unknown
  // code, with the seeded user agent and referrer, and a crawler's.
  const clicks: [string, Record<string, string>][] = [
    [slug, { 'user-agent': DESKTOP_CHROME, referer: text.referrer }],
    [`${slug}/promo`, { 'user-agent': text.userAgent, referer: text.referrer }],
    [`${slug}/nope`, { 'user-agent': DESKTOP_CHROME }],
    [slug, { 'user-agent': 'curl/8.5.0' }],
  ];
  for (const [path, headers] of clicks) {
    const hop = await d.t.app.handle(new Request(`${d.t.deps.config.shortHost}/${path}`, { headers }));
    expect(hop.status).toBe(302);
  }
  expect(await d.t.deps.clicks.flusher.flush()).toBe(true);
  return { id, slug };
}

export function createSeed(d: Dashboard, session: { key: string; email: string; accountId: string }, text: SeedText) {
  let link: Promise<SeededLink> | null = null;
  const seed: Seed = {
    d,
    key: session.key,
    email: session.email,
    text,
    link: () => (link ??= seedLink(d, session.key, text)),
    async apiKey() {
      await createApiKey(d.t.deps, {
        accountId: session.accountId,
        scope: 'read',
        expiresAt: null,
        name: text.keyName,
      });
    },
    async otherSession() {
      const res = await dash(d.t, 'POST', '/session', {
        body: { email: session.email, password: PASSWORD },
        headers: { 'user-agent': text.userAgent },
      });
      expect(res.status).toBe(200);
    },
    async webhook() {
      const res = await api(d.t, 'POST', '/webhooks', {
        key: session.key,
        body: { url: 'https://receiver.example/hook', events: ['link.created', 'clicks'], description: text.keyName },
      });
      expect(res.status).toBe(201);
      return res.body.id;
    },
  };
  return seed;
}

export interface OpenedPage extends OfflinePage {
  seed: Seed;
  /** Every response the page received, in order (the HTML shell among them). */
  responses: PlaywrightResponse[];
}

/**
 * Opens a registry page as its entry says: a page of its own, signed in as a new superuser
 * unless the page is public (whose seed still gets an account and key), seeded, loaded, ready.
 */
export async function openDashboardPage(d: Dashboard, entry: DashboardPage, text: SeedText): Promise<OpenedPage> {
  const p = await offlinePage(d.browser);
  let session: { key: string; email: string; accountId: string };
  if (entry.access === 'public') {
    const made = await makeKey(d.t, 'write', { superuser: true });
    session = { key: made.key, email: made.account.email, accountId: made.account.id };
  } else {
    const real = await realSession(d, p.page, true);
    session = { key: real.key, email: real.account.email, accountId: real.account.id };
  }
  const seed = createSeed(d, session, text);
  const responses: PlaywrightResponse[] = [];
  p.page.on('response', (r) => responses.push(r));
  await p.page.goto(`${d.origin}${await entry.reach(seed)}`);
  await entry.ready(p.page);
  return { ...p, seed, responses };
}
