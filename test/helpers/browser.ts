/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser). Every request to a
 * host other than loopback is aborted and recorded, so a page that needs the internet fails.
 */
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.SLINK_CHROMIUM ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A page that only reaches 127.0.0.1/localhost; `blocked` lists every other URL it tried. */
export async function offlinePage(browser: Browser): Promise<{ page: Page; blocked: string[]; errors: string[] }> {
  const page = await browser.newPage();
  const blocked: string[] = [];
  const errors: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.hostname === 'localhost') return route.continue();
    blocked.push(url.href);
    return route.abort();
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return { page, blocked, errors };
}
