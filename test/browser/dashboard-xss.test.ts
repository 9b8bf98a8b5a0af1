/**
 * Markup in everything people and visitors can put into Slink (titles, tags, project names,
 * params, destinations, API key names, a session's and a click's user agent, a click's referrer,
 * the workspace's name) never runs on any dashboard page of the registry: no payload fires, no
 * href is anything but http(s) or a same-origin path, and the payloads show as plain text.
 * On SQLite only: the escaping is the pages' own; that either engine gives back the stored text
 * unchanged is held by the API tests, which run on both.
 */
import { expect, test } from 'bun:test';
import { dashboardPerFile, expectCleanPage, waitUntil } from '../helpers/dashboard-browser';
import { DASHBOARD_PAGES } from './dashboard-pages';
import { openDashboardPage, type SeedText } from './dashboard-seed';

const IMG = '<img src=x onerror="window.__xss=1">';
const SVG = '"><svg onload=window.__xss=1>';
const JS_URL = 'javascript:window.__xss=1';
const PAYLOADS = [IMG, SVG, JS_URL];

const d = dashboardPerFile({ SLINK_WORKSPACE_NAME: IMG });

const XSS_TEXT: SeedText = {
  title: IMG,
  tag: SVG,
  project: SVG,
  paramKey: SVG,
  paramValue: JS_URL,
  destinationPath: `x?next=${SVG}#${IMG}`,
  keyName: IMG,
  userAgent: SVG,
  referrer: JS_URL,
};

/** Every href on the page that is neither http(s) nor a path on this origin. */
async function unsafeHrefs(page: import('playwright-core').Page): Promise<string[]> {
  const hrefs = (await page.evaluate(
    `[...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href'))`,
  )) as string[];
  return hrefs.filter((href) => !/^https?:\/\//i.test(href) && !/^(\/(?!\/)|[?#])/.test(href));
}

const seen = new Set<string>();

for (const entry of DASHBOARD_PAGES) {
  test(`${entry.name}: payloads stay text`, async () => {
    const p = await openDashboardPage(d, entry, XSS_TEXT);
    // Every image on the page has loaded or failed: an image's error event runs in the same task
    // that marks it complete, so an onerror made from a payload would have run by now.
    await waitUntil(async () => (await p.page.evaluate('[...document.images].every((img) => img.complete)')) === true);
    expect(await p.page.evaluate('window.__xss')).toBeUndefined();
    expect(await unsafeHrefs(p.page)).toEqual([]);
    const text = (await p.page.evaluate('document.body.innerText')) as string;
    const shown = PAYLOADS.filter((payload) => text.includes(payload));
    for (const payload of shown) seen.add(payload);
    if (entry.shows) expect(shown.length).toBeGreaterThan(0);
    // No element was made from the markup.
    expect(await p.page.locator('main img[src="x"], main svg[onload]').count()).toBe(0);
    await expectCleanPage(p);
    await p.page.close();
  }, 90_000);
}

// Runs after the pages above (tests of a file run in order).
test('each payload was shown as text on some page (not dropped, not rendered)', () => {
  expect([...seen].sort()).toEqual([...PAYLOADS].sort());
});
