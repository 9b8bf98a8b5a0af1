/**
 * How long the links page takes to become usable in Chromium: from navigation start to the
 * moment the first page of links (or the empty state) is rendered and `New link` is enabled.
 * The moment is taken inside the page by a MutationObserver that the browser injects before any
 * of the page's code (so the CSP does not apply and polling adds no delay), as performance.now(),
 * which counts from navigation start.
 */
import type { Browser, BrowserContext, Cookie, Page } from 'playwright-core';

const WATCH_READY = `
  window.__ready = null;
  const check = () => {
    if (window.__ready !== null) return;
    const button = [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === 'New link');
    const listed = document.querySelector('.link-item') ||
      [...document.querySelectorAll('h2')].some((h) => h.textContent === 'No links yet');
    if (button && !button.disabled && listed) window.__ready = performance.now();
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true, attributes: true });
`;

/** One page load, in ms from navigation start, with where the time went. */
export interface Load {
  ready: number;
  /** The dashboard's script downloaded (responseEnd). */
  script: number;
  /** GET /api/v1/links: sent (requestStart) and answered (responseEnd). */
  linksSent: number;
  linksAnswered: number;
}

const MEASURE = `(() => {
  const entries = performance.getEntriesByType('resource');
  const find = (test) => entries.find((e) => test(new URL(e.name)));
  const script = find((u) => /^\\/app\\/assets\\/main-.*\\.js$/.test(u.pathname));
  const links = find((u) => u.pathname === '/api/v1/links');
  return {
    ready: window.__ready,
    script: script ? script.responseEnd : NaN,
    linksSent: links ? links.requestStart : NaN,
    linksAnswered: links ? links.responseEnd : NaN,
  };
})()`;

async function measure(page: Page, url: string): Promise<Load> {
  await page.goto(url);
  const end = Date.now() + 30_000;
  for (;;) {
    const load = (await page.evaluate(MEASURE)) as Load;
    if (load.ready !== null) return load;
    if (Date.now() > end) throw new Error(`${url} was not ready within 30 s`);
    await Bun.sleep(20);
  }
}

async function signedInContext(browser: Browser, cookie: Cookie): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addCookies([cookie]);
  await context.addInitScript({ content: WATCH_READY });
  return context;
}

/** One load in a new context: an empty HTTP cache, every asset downloaded and compiled. */
export async function coldLoad(browser: Browser, cookie: Cookie, url: string): Promise<Load> {
  const context = await signedInContext(browser, cookie);
  try {
    return await measure(await context.newPage(), url);
  } finally {
    await context.close();
  }
}

/** A page loaded once; each load() loads it again, its assets from the cache (immutable). */
export async function warmLoader(browser: Browser, cookie: Cookie, url: string) {
  const context = await signedInContext(browser, cookie);
  const page = await context.newPage();
  await measure(page, url);
  return { load: () => measure(page, url), close: () => context.close() };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
