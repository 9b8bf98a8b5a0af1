/**
 * A link's page tells its owner how many visits its fallback URL answered (the API's
 * fallbackCount), in its Status panel, in Chromium against the real app: the old link is still
 * in use. Nothing is said while none was sent there.
 */
import { beforeAll, expect, test } from 'bun:test';
import { api } from '../helpers/app';
import { dashboardPerFile, expectCleanPage, expectUsableEverywhere, signedInPage } from '../helpers/dashboard-browser';
import { UA } from '../modules/clicks/support';

const d = dashboardPerFile();
const ids: Record<string, string> = {};

beforeAll(async () => {
  const { key } = await signedInPage(d);
  for (const slug of ['old-offer', 'old-quiet']) {
    const res = await api(d.t, 'POST', '/links', {
      key,
      body: {
        destination: `https://example.com/${slug}`,
        slug,
        expiresAt: d.t.clock.now() - 86_400_000,
        fallbackUrl: 'https://example.com/sorry',
      },
    });
    expect(res.status).toBe(201);
    ids[slug] = res.body.id;
  }
  for (let i = 0; i < 1234; i++) {
    const res = await d.t.app.handle(
      new Request('https://sl.test/old-offer', { headers: { 'user-agent': UA.chromeWin } }),
    );
    expect(res.headers.get('location')).toBe('https://example.com/sorry');
  }
  expect(await d.t.deps.clicks.flusher.flush()).toBe(true);
});

test('the Status panel says how many visits went to the fallback since it expired', async () => {
  const p = await signedInPage(d);
  const show = async (slug: string) => {
    await p.page.goto(`${d.origin}/app/links/${ids[slug]}`);
    await p.page.getByRole('heading', { name: slug, level: 1 }).waitFor();
  };
  await show('old-offer');
  const panel = p.page.getByRole('region', { name: 'Status' });
  expect(await panel.locator('p.hint').allTextContents()).toEqual([
    '1,234 visits sent to the fallback since it expired',
  ]);
  await expectUsableEverywhere(p.page, () => show('old-offer'));
  await show('old-quiet');
  expect(await p.page.getByRole('region', { name: 'Status' }).locator('p.hint').count()).toBe(0);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);
