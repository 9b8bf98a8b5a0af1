/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser). Every request to a
 * host other than loopback is aborted and recorded, so a page that needs the internet fails;
 * every Content-Security-Policy violation the page reports is recorded too.
 */
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';

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

// Runs before any of the page's own code (injected by the browser, so the page's CSP does not apply).
const RECORD_CSP_VIOLATIONS = `
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolations.push(e.effectiveDirective + ' ' + (e.blockedURI || 'inline') + ' ' + (e.sourceFile || ''));
  });
`;

/** Every CSP violation the page has reported since it loaded. */
export function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate('window.__cspViolations ?? []') as Promise<string[]>;
}

export interface OfflinePage {
  page: Page;
  /** Every non-loopback URL the page tried to reach. */
  blocked: string[];
  /** Uncaught errors of the page's scripts. */
  errors: string[];
  /** Console reports of blocked content (the browser's own words for CSP violations). */
  csp: string[];
}

/**
 * A page (in a context of its own) that only reaches 127.0.0.1/localhost; `blocked` lists every
 * other URL it tried.
 */
export async function offlinePage(browser: Browser, options: BrowserContextOptions = {}): Promise<OfflinePage> {
  const page = await browser.newPage(options);
  const blocked: string[] = [];
  const errors: string[] = [];
  const csp: string[] = [];
  await page.addInitScript({ content: RECORD_CSP_VIOLATIONS });
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) csp.push(message.text());
  });
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.hostname === 'localhost') return route.continue();
    blocked.push(url.href);
    return route.abort();
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return { page, blocked, errors, csp };
}
