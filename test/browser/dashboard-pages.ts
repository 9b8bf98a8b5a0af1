/**
 * Every dashboard page, with how a test reaches it. The page tests (offline, CSP, axe, 375 px:
 * dashboard-pages.test.ts) and the XSS test (dashboard-xss.test.ts) run over this list, and the
 * pages test fails while a route of src/modules/dashboard/client/routes.ts has no entry here: a
 * new page is covered by adding one entry.
 *
 * An entry:
 *   name    a unique label, used in test names
 *   route   the path pattern exactly as in client/routes.ts
 *   access  'public' (opened signed out), 'signed-in' or 'superuser' (opened signed in)
 *   reach   seeds what the page needs through the Seed (dashboard-seed.ts: a link with tags, a
 *           project, params, a variant and clicks; an API key; another session) and returns the
 *           address to open (path and query)
 *   ready   resolves once the page shows its loaded content (usually its heading)
 *   shows   true when the page shows the seeded texts (the XSS test expects a payload on it)
 *
 * For example, a link's statistics page:
 *   { name: 'link statistics', route: '/app/links/:id/stats', access: 'signed-in', shows: true,
 *     reach: async (s) => `/app/links/${(await s.link()).id}/stats`,
 *     ready: (page) => page.getByRole('heading', { name: 'Statistics' }).waitFor() },
 */
import { expect } from 'bun:test';
import type { Page } from 'playwright-core';
import { api } from '../helpers/app';
import type { Seed } from './dashboard-seed';

export interface DashboardPage {
  name: string;
  route: string;
  access: 'public' | 'signed-in' | 'superuser';
  reach(seed: Seed): Promise<string>;
  ready(page: Page): Promise<void>;
  shows: boolean;
}

/** Waits for the page's level-1 heading with this name. */
const heading = (name: string | RegExp) => (page: Page) => page.getByRole('heading', { name, level: 1 }).waitFor();

export const DASHBOARD_PAGES: DashboardPage[] = [
  {
    name: 'sign-in',
    route: '/app/sign-in',
    access: 'public',
    reach: async () => '/app/sign-in',
    ready: heading('Sign in'),
    shows: false,
  },
  {
    name: 'setup',
    route: '/app/setup',
    access: 'public',
    // An account exists in these tests, so the page says setup is done (the form itself is
    // checked in dashboard-public.test.ts and the journey).
    reach: async (s) => `/app/setup?token=${s.d.t.deps.setupToken}`,
    ready: heading(/Set up Slink|Slink is set up/),
    shows: false,
  },
  {
    name: 'invite',
    route: '/app/invite/:token',
    access: 'public',
    // An invite's address as an admin's invite gives it (on SLINK_APP_HOST), opened on loopback.
    reach: async (s) => {
      const email = `invited.${crypto.randomUUID()}@example.com`;
      const made = await api(s.d.t, 'POST', '/invites', { key: s.key, body: { email, role: 'editor' } });
      expect(made.status).toBe(201);
      return new URL(made.body.url).pathname;
    },
    ready: heading('You are invited to Slink'),
    shows: false,
  },
  {
    name: 'links',
    route: '/app',
    access: 'signed-in',
    reach: async (s) => {
      await s.link();
      return '/app';
    },
    ready: async (page) => {
      await page.locator('.link-item').first().waitFor();
    },
    shows: true,
  },
  {
    name: 'link',
    route: '/app/links/:id',
    access: 'signed-in',
    reach: async (s) => `/app/links/${(await s.link()).id}`,
    ready: async (page) => {
      await page.getByRole('region', { name: 'Variants' }).getByText('/promo').waitFor();
    },
    shows: true,
  },
  {
    name: 'link statistics',
    route: '/app/links/:id/stats',
    access: 'signed-in',
    reach: async (s) => `/app/links/${(await s.link()).id}/stats?range=all&bots=1`,
    ready: async (page) => {
      await page.getByRole('region', { name: 'Totals' }).waitFor();
      await page.locator('.stats-chart canvas').first().waitFor();
    },
    shows: true,
  },
  {
    name: 'workspace statistics',
    route: '/app/stats',
    access: 'signed-in',
    reach: async (s) => {
      await s.link();
      return '/app/stats?range=all&bots=1';
    },
    ready: async (page) => {
      await page.getByRole('region', { name: 'Totals' }).waitFor();
      await page.locator('.stats-chart canvas').first().waitFor();
    },
    shows: true,
  },
  {
    name: 'projects',
    route: '/app/projects',
    access: 'signed-in',
    reach: async (s) => {
      await s.link();
      return '/app/projects';
    },
    ready: async (page) => {
      await page.getByRole('link', { name: 'No project' }).first().waitFor();
    },
    shows: true,
  },
  {
    name: 'tags',
    route: '/app/tags',
    access: 'signed-in',
    reach: async (s) => {
      await s.link();
      return '/app/tags';
    },
    ready: async (page) => {
      await page
        .getByRole('link', { name: /seeded/ })
        .first()
        .waitFor();
    },
    shows: true,
  },
  {
    name: 'bulk create',
    route: '/app/bulk',
    access: 'signed-in',
    reach: async () => '/app/bulk',
    ready: heading('Bulk create'),
    shows: false,
  },
  {
    name: 'settings',
    route: '/app/settings',
    access: 'signed-in',
    reach: async () => '/app/settings',
    ready: heading('Settings'),
    shows: false,
  },
  {
    name: 'settings: API keys',
    route: '/app/settings/keys',
    access: 'signed-in',
    reach: async (s) => {
      await s.apiKey();
      return '/app/settings/keys';
    },
    ready: async (page) => {
      await page.getByRole('cell').first().waitFor();
    },
    shows: true,
  },
  {
    name: 'settings: domains',
    route: '/app/settings/domains',
    access: 'signed-in',
    reach: async () => '/app/settings/domains',
    ready: async (page) => {
      await page.getByRole('cell').first().waitFor();
    },
    shows: false,
  },
  {
    name: 'settings: webhooks',
    route: '/app/settings/webhooks',
    access: 'signed-in',
    reach: async (s) => {
      await s.webhook();
      return '/app/settings/webhooks';
    },
    ready: async (page) => {
      await page.locator('.webhook-item').first().waitFor();
    },
    // Its description.
    shows: true,
  },
  {
    name: "settings: a webhook's deliveries",
    route: '/app/settings/webhooks/:id',
    access: 'signed-in',
    reach: async (s) => `/app/settings/webhooks/${await s.webhook()}`,
    ready: async (page) => {
      await page.getByRole('heading', { name: 'No deliveries yet' }).waitFor();
    },
    // Its description, in the heading.
    shows: true,
  },
  {
    name: 'settings: sessions',
    route: '/app/settings/sessions',
    access: 'signed-in',
    reach: async (s) => {
      await s.otherSession();
      return '/app/settings/sessions';
    },
    ready: async (page) => {
      await page.locator('.session-item').nth(1).waitFor();
    },
    // The browser and system the server read from the user agent, never the user agent itself.
    shows: false,
  },
  {
    name: 'settings: account',
    route: '/app/settings/account',
    access: 'signed-in',
    reach: async () => '/app/settings/account',
    ready: async (page) => {
      await page.getByLabel('Current password').waitFor();
    },
    shows: false,
  },
  {
    name: 'settings: workspace',
    route: '/app/settings/workspace',
    access: 'signed-in',
    reach: async () => '/app/settings/workspace',
    ready: async (page) => {
      await page.getByText('https://app.sl.test').waitFor();
    },
    // The workspace's name (SLINK_WORKSPACE_NAME), which the XSS test sets to a payload.
    shows: true,
  },
  {
    name: 'settings: accounts',
    route: '/app/settings/accounts',
    access: 'superuser',
    reach: async () => '/app/settings/accounts',
    ready: async (page) => {
      await page.getByRole('cell').first().waitFor();
    },
    shows: false,
  },
  {
    name: 'settings: audit log',
    route: '/app/settings/audit',
    access: 'superuser',
    // The seeded link's creation is an entry; the log shows names of fields, never their values.
    reach: async (s) => {
      await s.link();
      return '/app/settings/audit';
    },
    ready: async (page) => {
      await page.getByRole('cell').first().waitFor();
    },
    shows: false,
  },
  {
    name: 'settings: import',
    route: '/app/settings/import',
    access: 'superuser',
    reach: async () => '/app/settings/import',
    ready: async (page) => {
      await page.getByRole('heading', { name: 'No imports yet' }).waitFor();
    },
    shows: false,
  },
];
