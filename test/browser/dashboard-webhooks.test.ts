/**
 * The Webhooks settings page in Chromium against the real app and a real receiver (a Bun server
 * on loopback, which SLINK_WEBHOOKS_ALLOW_PRIVATE=1 lets the app deliver to): creating one with
 * its secret shown once, the API's 400 under the field it names, the delivery log of a failed
 * attempt with the receiver's answer, Redeliver, disabling and enabling, and a webhook the sender
 * disabled after a day of failures saying why, its event delivered once it is enabled. Deliveries are made by the app's own sender.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { api, apiExpecting, makeKey } from '../helpers/app';
import {
  dashboardPerFile,
  expectCleanPage,
  seriousA11yViolations,
  signedInPage,
  waitUntil,
} from '../helpers/dashboard-browser';

const d = dashboardPerFile({ SLINK_WEBHOOKS_ALLOW_PRIVATE: '1' });

/** What each path of the receiver answers, in turn (the last answer repeats). */
const script = new Map<string, [number, string][]>();
const received: string[] = [];
const receiver = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const path = new URL(req.url).pathname;
    received.push(`${path} ${await req.text()}`);
    const answers = script.get(path) ?? [[200, 'ok']];
    const [status, body] = answers.length > 1 ? answers.shift()! : answers[0]!;
    return new Response(body, { status });
  },
});
const at = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;

beforeAll(() => d.t.deps.webhooks.start());
afterAll(async () => {
  await d.t.deps.webhooks.stop();
  receiver.stop(true);
});

async function webhooksOf(key: string): Promise<any[]> {
  return (await apiExpecting(d.t, key, 'GET', '/webhooks')).items;
}

test('create: a 400 under the field it names, then one click; the secret is shown once, then gone', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app/settings/webhooks`);
  await p.page.getByRole('heading', { name: 'No webhooks' }).waitFor();
  expect(
    await p.page
      .getByRole('navigation', { name: 'Settings' })
      .getByRole('link', { name: 'Webhooks' })
      .getAttribute('aria-current'),
  ).toBe('page');

  await p.page.getByRole('button', { name: 'Create webhook' }).click();
  const dialog = p.page.getByRole('dialog', { name: 'New webhook' });
  await dialog.getByLabel('URL').fill('ftp://receiver.example/hook');
  await dialog.getByRole('button', { name: 'Create webhook' }).click();
  const urlError = dialog.locator('.field-error');
  await urlError.waitFor();
  expect(await urlError.textContent()).toBe('Use a full web address such as https://example.com/hooks.');
  expect(await dialog.getByLabel('URL').getAttribute('aria-invalid')).toBe('true');
  expect(await webhooksOf(p.key)).toEqual([]);
  // Written without a scheme, as a destination may be: https:// is added on leaving the field.
  await dialog.getByLabel('URL').fill('receiver.example/hook');
  await dialog.getByLabel('Description').focus();
  expect(await dialog.getByLabel('URL').inputValue()).toBe('https://receiver.example/hook');

  await dialog.getByLabel('URL').fill(at('/hook'));
  await dialog.getByLabel('Description').fill('CRM sync');
  await dialog.getByLabel(/^link\.deleted/).uncheck();
  await dialog.getByLabel(/^clicks/).check();
  await dialog.getByLabel('Include bot hits').check();
  await dialog.getByRole('button', { name: 'Create webhook' }).click();
  const secretField = dialog.getByRole('textbox', { name: 'Signing secret' });
  await secretField.waitFor();
  const secret = await secretField.inputValue();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
  expect(await dialog.getByText('it will not be shown again').isVisible()).toBe(true);
  expect(await dialog.getByRole('button', { name: 'Copy signing secret' }).isVisible()).toBe(true);
  expect(await seriousA11yViolations(p.page)).toEqual([]);

  const [stored] = await webhooksOf(p.key);
  expect({ ...stored, id: '', createdAt: 0, updatedAt: 0 }).toEqual({
    id: '',
    url: at('/hook'),
    description: 'CRM sync',
    events: ['link.created', 'link.updated', 'clicks'],
    bots: true,
    active: true,
    consecutiveFailures: 0,
    failingSince: null,
    disabledReason: null,
    previousSecretUntil: null,
    createdAt: 0,
    updatedAt: 0,
  });

  await dialog.getByRole('button', { name: 'Done' }).click();
  const item = p.page.locator('.webhook-item').filter({ hasText: 'CRM sync' });
  await item.waitFor();
  expect(await item.textContent()).toContain('Events: link.created, link.updated, clicks (with bot hits)');
  expect(await item.textContent()).toContain('Active');
  expect(await p.page.content()).not.toContain(secret.slice(6));

  // Edit: only what changed is sent.
  await p.page.getByRole('button', { name: 'Edit CRM sync' }).click();
  const edit = p.page.getByRole('dialog', { name: 'Edit webhook' });
  expect(await edit.getByLabel('URL').inputValue()).toBe(at('/hook'));
  await edit.getByLabel(/^clicks/).uncheck();
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await edit.waitFor({ state: 'detached' });
  await item.getByText('Events: link.created, link.updated', { exact: true }).waitFor();
  expect((await webhooksOf(p.key))[0].events).toEqual(['link.created', 'link.updated']);

  // Delete asks first.
  await p.page.getByRole('button', { name: 'Delete CRM sync' }).click();
  await p.page
    .getByRole('dialog', { name: 'Delete CRM sync?' })
    .getByRole('button', { name: 'Delete webhook' })
    .click();
  await p.page.getByRole('heading', { name: 'No webhooks' }).waitFor();
  expect(await p.page.getByRole('status').filter({ hasText: 'Deleted' }).textContent()).toBe('Deleted CRM sync.');
  expect(await webhooksOf(p.key)).toEqual([]);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('delivery log: a failed attempt with its status and answer; Redeliver shows the new attempt', async () => {
  const p = await signedInPage(d);
  script.set('/flaky', [
    [500, 'receiver <b>down</b> for maintenance'],
    [200, 'thanks'],
  ]);
  const hook = await apiExpecting(d.t, p.key, 'POST', '/webhooks', {
    url: at('/flaky'),
    events: ['link.created'],
    description: 'Flaky receiver',
  });
  const link = await apiExpecting(d.t, p.key, 'POST', '/links', {
    destination: 'https://example.com/a',
    slug: 'hooked',
  });
  const attempts = async () => (await apiExpecting(d.t, p.key, 'GET', `/webhooks/${hook.id}/deliveries`)).items;
  await waitUntil(async () => (await attempts()).length === 1);

  await p.page.goto(`${d.origin}/app/settings/webhooks`);
  await p.page.getByRole('link', { name: 'Delivery log of Flaky receiver' }).click();
  await p.page.getByRole('heading', { name: 'Deliveries to Flaky receiver', level: 1 }).waitFor();
  const log = p.page.getByRole('list', { name: 'Delivery attempts' });
  const failed = log.getByRole('listitem').first();
  await failed.getByText('Failed: 500', { exact: true }).waitFor();
  const [first] = await attempts();
  expect(await failed.textContent()).toContain(first.eventId);
  expect(await failed.textContent()).toContain('link.created');
  expect(await failed.textContent()).toContain('attempt 1');
  // When it is tried again, from the API's nextAttemptAt (the app's clock stands still: not yet).
  const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
  expect(await failed.locator('.delivery-next').textContent()).toBe(`Next attempt at ${utc(first.nextAttemptAt)}`);
  await failed.getByText('Request and response').click();
  const payloads = failed.locator('pre');
  expect(JSON.parse((await payloads.nth(0).textContent())!).data.id).toBe(link.id);
  // The receiver's answer as text, its markup shown, not rendered.
  expect(await payloads.nth(1).textContent()).toBe('receiver <b>down</b> for maintenance');
  expect(await failed.locator('b').count()).toBe(0);
  expect(await seriousA11yViolations(p.page)).toEqual([]);

  await failed.getByRole('button', { name: `Redeliver ${first.eventId}` }).click();
  const newest = log.getByRole('listitem').first();
  await newest.getByText('Delivered: 200').waitFor();
  expect(await newest.textContent()).toContain('attempt 2');
  expect(await log.getByRole('listitem').count()).toBe(2);
  expect(await log.getByRole('listitem').nth(1).textContent()).toContain('Failed: 500');
  const now = await attempts();
  expect(now.map((a: any) => [a.attempt, a.statusCode, a.error, a.response])).toEqual([
    [2, 200, null, 'thanks'],
    [1, 500, 'answered 500', 'receiver <b>down</b> for maintenance'],
  ]);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('send a test event (its outcome in the log); rotate the secret: asked first, the new one shown once', async () => {
  const p = await signedInPage(d);
  for (const w of await webhooksOf(p.key)) await apiExpecting(d.t, p.key, 'DELETE', `/webhooks/${w.id}`);
  const created = await apiExpecting(d.t, p.key, 'POST', '/webhooks', {
    url: at('/pinged'),
    events: ['link.deleted'],
    description: 'Pinged',
  });
  await p.page.goto(`${d.origin}/app/settings/webhooks`);
  await p.page.getByRole('button', { name: 'Send test to Pinged' }).click();
  await p.page.getByRole('status').filter({ hasText: 'Sent a test event to Pinged' }).waitFor();
  const log = async () => (await apiExpecting(d.t, p.key, 'GET', `/webhooks/${created.id}/deliveries`)).items;
  await waitUntil(async () => (await log()).length === 1);
  expect((await log()).map((a: any) => [a.type, a.statusCode])).toEqual([['webhook.test', 200]]);
  expect(received.filter((r) => r.startsWith('/pinged ')).map((r) => JSON.parse(r.slice(8)).type)).toEqual([
    'webhook.test',
  ]);

  await p.page.getByRole('button', { name: 'Rotate secret of Pinged' }).click();
  const confirm = p.page.getByRole('dialog', { name: 'Rotate the secret of Pinged?' });
  expect(await confirm.textContent()).toContain('For 24 hours every delivery is signed with both');
  await confirm.getByRole('button', { name: 'Rotate secret' }).click();
  const shown = p.page.getByRole('dialog', { name: 'New signing secret' });
  const secret = await shown.getByRole('textbox', { name: 'Signing secret' }).inputValue();
  expect(secret).toMatch(/^whsec_/);
  expect(await seriousA11yViolations(p.page)).toEqual([]);
  await shown.getByRole('button', { name: 'Done' }).click();
  await shown.waitFor({ state: 'detached' });
  const until = (await apiExpecting(d.t, p.key, 'GET', `/webhooks/${created.id}`)).previousSecretUntil;
  expect(until).toBe(d.t.clock.now() + 86_400_000);
  const item = p.page.locator('.webhook-item').filter({ hasText: 'Pinged' });
  await item.getByText('The previous secret signs deliveries too until').waitFor();
  expect(await p.page.content()).not.toContain(secret.slice(6));
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('disable and enable by hand; one failing for 24 hours is disabled and says why, plainly', async () => {
  // A day of failures passes on the app's clock first: the session signing in comes after it.
  const { key } = await makeKey(d.t, 'write', { superuser: true });
  for (const w of await webhooksOf(key)) await apiExpecting(d.t, key, 'DELETE', `/webhooks/${w.id}`);
  script.set('/down', [[503, 'maintenance']]);
  const manual = await apiExpecting(d.t, key, 'POST', '/webhooks', {
    url: at('/ok'),
    events: ['link.deleted'],
    description: 'Audit log',
  });
  const broken = await apiExpecting(d.t, key, 'POST', '/webhooks', { url: at('/down'), events: ['link.created'] });
  await apiExpecting(d.t, key, 'POST', '/links', { destination: 'https://example.com/down' });
  const brokenNow = () => apiExpecting(d.t, key, 'GET', `/webhooks/${broken.id}`);
  await waitUntil(async () => (await brokenNow()).consecutiveFailures === 1);
  expect(await brokenNow()).toMatchObject({ active: true, failingSince: d.t.clock.now() });
  // A day later its retry fails again: 24 hours without a success disable it.
  d.t.clock.advance(24 * 3_600_000);
  await waitUntil(async () => (await brokenNow()).active === false, 30_000);
  const disabled = await brokenNow();
  expect(disabled.disabledReason).toContain('503');
  const p = await signedInPage(d);

  await p.page.goto(`${d.origin}/app/settings/webhooks`);
  const item = p.page.locator('.webhook-item').filter({ hasText: at('/down') });
  await item.getByText('Disabled automatically').waitFor();
  const since = `${new Date(disabled.failingSince).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  expect(await item.locator('.webhook-disabled p').first().textContent()).toBe(
    `Disabled automatically after 24 hours without a success (${disabled.consecutiveFailures} failed attempts in a row since ${since})`,
  );
  expect(await item.getByText(`Reason: ${disabled.disabledReason}`, { exact: true }).isVisible()).toBe(true);

  await p.page.getByRole('button', { name: 'Disable Audit log' }).click();
  await p.page.getByRole('button', { name: 'Enable Audit log' }).waitFor();
  expect(
    await p.page
      .locator('.webhook-item')
      .filter({ hasText: 'Audit log' })
      .getByText('Disabled', { exact: true })
      .isVisible(),
  ).toBe(true);
  expect((await apiExpecting(d.t, p.key, 'GET', `/webhooks/${manual.id}`)).active).toBe(false);
  await p.page.getByRole('button', { name: 'Enable Audit log' }).click();
  await p.page.getByRole('button', { name: 'Disable Audit log' }).waitFor();
  expect((await apiExpecting(d.t, p.key, 'GET', `/webhooks/${manual.id}`)).active).toBe(true);

  // Enabling the broken one clears its reason and count.
  script.set('/down', [[200, 'back']]);
  await p.page.getByRole('button', { name: `Enable ${at('/down')}` }).click();
  await item.getByText('Active').waitFor();
  expect(await item.getByText('Disabled automatically').count()).toBe(0);
  const enabled = (await api(d.t, 'GET', `/webhooks/${broken.id}`, { key: p.key })).body;
  expect({ active: enabled.active, reason: enabled.disabledReason }).toEqual({ active: true, reason: null });
  // Its event, kept while it was disabled, goes out now.
  const newestAttempt = async () =>
    (await apiExpecting(d.t, p.key, 'GET', `/webhooks/${broken.id}/deliveries?limit=1`)).items[0];
  await waitUntil(async () => (await newestAttempt()).statusCode === 200);
  await expectCleanPage(p);
  await p.page.close();
}, 120_000);
