import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { api } from '../helpers/app';
import { signedInPage, startDashboard, waitUntil } from '../helpers/dashboard-browser';
import { UA } from '../modules/clicks/support';
import { SIZES, screenshotDir } from './screenshot-sizes';

const outDir = screenshotDir();

/** The warehouse's receiver fails its first delivery only. */
let failing = true;
const receiver = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(req) {
    const path = new URL(req.url).pathname;
    if (path.startsWith('/down'))
      return new Response('Service Unavailable: the CRM is in maintenance', { status: 503 });
    if (path.startsWith('/flaky') && failing) {
      failing = false;
      return Response.json({ error: 'database locked', retryAfter: 30 }, { status: 500 });
    }
    return new Response('accepted', { status: 202 });
  },
});
const at = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;

const d = await startDashboard({ SLINK_WEBHOOKS_ALLOW_PRIVATE: '1', SLINK_TRUST_PROXY: '1' });
d.t.deps.webhooks.start();
try {
  const p = await signedInPage(d);
  const key = p.key;
  const post = async (path: string, body: unknown) => (await api(d.t, 'POST', path, { key, body })).body;
  const crm = await post('/webhooks', {
    url: at('/down/hooks/slink?account=acme-corporation-international&token=a-very-long-query-string-value'),
    events: ['link.created', 'link.updated', 'link.deleted'],
    description: 'CRM sync',
  });
  const flaky = await post('/webhooks', {
    url: at('/flaky/slink'),
    events: ['link.updated', 'clicks'],
    description: 'Analytics warehouse',
  });
  const audit = await post('/webhooks', {
    url: 'https://hooks.example/audit',
    events: ['link.deleted'],
    description: 'Audit log',
  });
  await api(d.t, 'PATCH', `/webhooks/${audit.id}`, { key, body: { active: false } });
  const links: { id: string; slug: string }[] = [];
  for (let i = 0; i < 20; i++)
    links.push(
      await post('/links', { destination: `https://shop.example.com/spring/item-${i}`, title: `Spring item ${i}` }),
    );
  // Read through the store, not the API: polling the API this often would meet its rate limit.
  const outbox = d.t.deps.stores.outbox;
  await waitUntil(async () => (await outbox.attempts(crm.id, 50, null)).length >= 20, 60_000);
  // A day on the app's clock without a success disables the CRM's webhook.
  d.t.clock.advance(24 * 3_600_000);
  await waitUntil(async () => (await d.t.deps.stores.webhooks.find(crm.id))?.active === false, 60_000);
  // The warehouse failed its first delivery, then took the next ones and a redelivery.
  for (const link of links.slice(0, 3))
    await api(d.t, 'PATCH', `/links/${link.id}`, { key, body: { tags: ['spring', 'homepage'] } });
  await waitUntil(async () => (await outbox.attempts(flaky.id, 50, null)).length >= 3, 60_000);
  const first = (await outbox.attempts(flaky.id, 50, null)).at(-1)!;
  await api(d.t, 'POST', `/webhooks/${flaky.id}/deliveries/${first.deliveryId}/retry`, { key });
  await waitUntil(async () => (await outbox.attempts(flaky.id, 50, null)).length >= 4, 60_000);
  // The warehouse's secret rotated (the old one still signing), and a test event sent to it.
  await api(d.t, 'POST', `/webhooks/${flaky.id}/rotate-secret`, { key });
  await api(d.t, 'POST', `/webhooks/${flaky.id}/test`, { key });
  await waitUntil(async () => (await outbox.attempts(flaky.id, 50, null)).length >= 5, 60_000);

  const shots: [string, string, (page: Page) => Promise<void>][] = [
    ['webhooks', '/app/settings/webhooks', (page) => page.getByText('Disabled automatically').waitFor()],
    [
      'webhook-secret',
      '/app/settings/webhooks',
      async (page) => {
        await page.getByRole('button', { name: 'Create webhook' }).click();
        const dialog = page.getByRole('dialog', { name: 'New webhook' });
        await dialog.getByLabel('URL').fill('https://hooks.example/slink');
        await dialog.getByLabel('Description').fill('Slack relay');
        await dialog.getByLabel(/^clicks/).check();
        await dialog.getByRole('button', { name: 'Create webhook' }).click();
        await dialog.getByRole('textbox', { name: 'Signing secret' }).waitFor();
        await page.mouse.move(0, 0);
      },
    ],
    [
      'webhook-deliveries',
      `/app/settings/webhooks/${flaky.id}`,
      async (page) => {
        const log = page.getByRole('list', { name: 'Delivery attempts' });
        await log.getByRole('listitem').first().waitFor();
        const failed = log.getByRole('listitem').filter({ hasText: 'Failed: 500' }).last();
        await failed.getByText('Request and response').click();
        await failed.scrollIntoViewIfNeeded();
      },
    ],
  ];

  // The secret dialog makes a webhook at each size: delete them after, so the list stays the same.
  for (const [name, path, ready] of shots) {
    for (const { width, colorScheme } of SIZES) {
      await p.page.setViewportSize({ width, height: 800 });
      await p.page.emulateMedia({ colorScheme });
      await p.page.goto(`${d.origin}${path}`);
      await ready(p.page);
      if (name !== 'webhook-deliveries') await p.page.evaluate('window.scrollTo(0, 0)');
      const file = join(outDir, `${name}-${width}-${colorScheme}.png`);
      await p.page.screenshot({ path: file });
      console.log(file);
      for (const w of (await api(d.t, 'GET', '/webhooks', { key })).body.items)
        if (w.description === 'Slack relay') await api(d.t, 'DELETE', `/webhooks/${w.id}`, { key });
    }
  }

  // A link's page while clicks arrive: a few recorded before, a few after it opened.
  const link = links[0]!;
  const visits: [string, string, string | undefined][] = [
    ['81.2.69.142', UA.chromeWin, 'https://news.example.org/spring-roundup'],
    ['8.8.8.8', UA.safariIphone, undefined],
    ['133.242.0.1', UA.chromeAndroid, 'https://t.co/abc'],
    ['62.4.0.1', UA.firefoxLinux, 'https://www.google.com/'],
  ];
  const click = async ([ip, ua, referer]: (typeof visits)[number]) => {
    const headers: Record<string, string> = { 'user-agent': ua, 'x-forwarded-for': ip };
    if (referer) headers.referer = referer;
    await d.t.app.handle(new Request(`https://sl.test/${link.slug}`, { headers }));
  };
  await click(visits[0]!);
  await d.t.deps.clicks.flusher.flush();
  for (const { width, colorScheme } of SIZES) {
    await p.page.setViewportSize({ width, height: 800 });
    await p.page.emulateMedia({ colorScheme });
    await p.page.goto(`${d.origin}/app/links/${link.id}`);
    await p.page.locator('.live-status').getByText('Live').waitFor();
    for (const v of visits.slice(1)) {
      d.t.clock.advance(7_000);
      await click(v);
      await d.t.deps.clicks.flusher.flush();
    }
    await p.page.getByRole('list', { name: 'Latest clicks, newest first' }).getByRole('listitem').nth(2).waitFor();
    // On a phone the feed comes after the link's fields: show it.
    if (width === 375) await p.page.locator('.live-feed').scrollIntoViewIfNeeded();
    else await p.page.evaluate('window.scrollTo(0, 0)');
    const file = join(outDir, `link-live-${width}-${colorScheme}.png`);
    await p.page.screenshot({ path: file });
    console.log(file);
  }
} finally {
  await d.t.deps.webhooks.stop();
  receiver.stop(true);
  await d.close();
}
