/**
 * A protected link served for a real browser: the app listening on 127.0.0.1 as both short and
 * app host (http, so the unlock cookie is not Secure), a local destination page on another port
 * (no internet), and one link with a password leading to it.
 */

import type { Browser } from 'playwright-core';
import { apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from './app';
import { launchBrowser } from './browser';

export const LINK_PASSWORD = 'team offsite 2027';
export const LINK_SLUG = 'offsite';
export const LANDING_HEADING = 'Destination reached';

export interface PasswordSite {
  t: TestApp;
  origin: string;
  linkId: string;
  /** Where the link sends a visitor with the right password. */
  destination: string;
  browser: Browser;
  close(): Promise<void>;
}

export async function startPasswordSite(): Promise<PasswordSite> {
  const landing = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: () =>
      new Response(`<!doctype html><html lang="en"><title>Landing</title><h1>${LANDING_HEADING}</h1></html>`, {
        headers: { 'content-type': 'text/html; charset=utf-8' },
      }),
  });
  const t = await makeTestApp({ SLINK_SHORT_HOST: 'http://127.0.0.1', SLINK_APP_HOST: 'http://127.0.0.1' });
  t.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false });
  const { key } = await makeKey(t, 'write', { superuser: true });
  const destination = `http://localhost:${landing.port}/landing`;
  const link = await apiExpecting(t, key, 'POST', '/links', { destination, slug: LINK_SLUG, password: LINK_PASSWORD });
  const browser = await launchBrowser();
  return {
    t,
    origin: `http://127.0.0.1:${t.app.server!.port}`,
    linkId: link.id,
    destination,
    browser,
    async close() {
      await browser.close();
      await disposeTestApp(t);
      await landing.stop(true);
    },
  };
}
