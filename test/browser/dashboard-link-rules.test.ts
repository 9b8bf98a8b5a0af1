/**
 * A link's redirect options, password, preview and rules on its page, in Chromium against the
 * real /api/v1 (a real session): a person fills the fields, clicks Save once, and the API then
 * holds the values; the list and the page's head show the Protected and rules badges; the rules
 * are built, reordered and removed with buttons; an API error shows under the rule's field it
 * names, numbered from 1 as the editor numbers the rules; the rules test says which rule a visit
 * matches, or what comes before the rules (expiry and fallback, pause).
 */
import { expect, test } from 'bun:test';
import type { Request } from 'playwright-core';
import { api } from '../helpers/app';
import {
  dashboardPerFile,
  expectCleanPage,
  expectUsableEverywhere,
  seriousA11yViolations,
  signedInPage,
  waitUntil,
} from '../helpers/dashboard-browser';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';

const d = dashboardPerFile();

async function linkPage(slug: string, extra: Record<string, unknown> = {}) {
  const p = await signedInPage(d);
  const key = p.key;
  const created = await api(d.t, 'POST', '/links', {
    key,
    body: { destination: 'https://example.com/', slug, ...extra },
  });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  // Every PATCH the page sends, to check that one click sends one request with the values.
  const patches: unknown[] = [];
  p.page.on('request', (r: Request) => {
    if (r.method() === 'PATCH' && r.url().endsWith(`/api/v1/links/${id}`)) patches.push(r.postDataJSON());
  });
  await p.page.goto(`${d.origin}/app/links/${id}`);
  await p.page.getByRole('heading', { name: slug, level: 1 }).waitFor();
  const read = async () => (await api(d.t, 'GET', `/links/${id}`, { key })).body;
  const details = p.page.getByRole('region', { name: 'Details' });
  const save = async () => {
    await details.getByRole('button', { name: 'Save changes' }).click();
    await details.getByText('Saved.').waitFor();
  };
  return { ...p, id, read, details, save, patches };
}

test('redirect options, password and preview: filled in, one Save, the API has them; the badge follows', async () => {
  const p = await linkPage('options');
  const { details } = p;
  const status = details.getByLabel('Redirect status');
  // The warning is where the choice is made, and only for the statuses browsers cache.
  expect(await details.getByText('Browsers cache a').count()).toBe(0);
  await status.selectOption('308');
  await details.getByText('Browsers cache a 308').waitFor();
  const described = (await status.getAttribute('aria-describedby'))!;
  expect(await p.page.locator(`[id="${described}"]`).textContent()).toContain('are then not counted');
  await details.getByLabel("Forward the visitor's query").check();
  await details.getByLabel('Fallback address').fill('https://example.com/ended');
  await details.getByLabel('Set a password').fill('correct horse');
  await details.getByLabel('Preview heading').fill('Spring sale');
  await details.getByLabel('Preview description').fill('Everything, this week only.');
  await details.getByLabel('Preview image URL').fill('https://example.com/card.png');
  await p.save();
  expect(p.patches).toEqual([
    {
      fallbackUrl: 'https://example.com/ended',
      redirectStatus: 308,
      forwardQuery: true,
      password: 'correct horse',
      preview: {
        title: 'Spring sale',
        description: 'Everything, this week only.',
        image: 'https://example.com/card.png',
      },
    },
  ]);
  expect(await p.read()).toMatchObject({
    fallbackUrl: 'https://example.com/ended',
    redirectStatus: 308,
    forwardQuery: true,
    passwordProtected: true,
    preview: {
      title: 'Spring sale',
      description: 'Everything, this week only.',
      image: 'https://example.com/card.png',
    },
  });
  // The password is never shown again; the page says the link is protected.
  await details.getByText('Protected: visitors type the password').waitFor();
  expect(await details.getByLabel('New password').inputValue()).toBe('');
  await p.page.locator('.page-head .badge', { hasText: 'Protected' }).waitFor();
  await p.page.goto(`${d.origin}/app`);
  const row = p.page.locator('.link-item', { hasText: 'sl.test/options' });
  await row.waitFor();
  expect(await row.locator('.badge').allTextContents()).toEqual(['Protected']);

  // Change it, then remove it and the preview: one Save each.
  await p.page.goto(`${d.origin}/app/links/${p.id}`);
  await details.getByLabel('New password').fill('battery staple');
  await p.save();
  expect(p.patches.at(-1)).toEqual({ password: 'battery staple' });
  await details.getByRole('button', { name: 'Remove password' }).click();
  await details.getByText('The password will be removed when you save').waitFor();
  await details.getByRole('button', { name: 'Remove preview' }).click();
  await details.getByLabel('Redirect status').selectOption('302');
  await details.getByLabel('Fallback address').fill('');
  await p.save();
  expect(p.patches.at(-1)).toEqual({ fallbackUrl: null, redirectStatus: 302, password: null, preview: null });
  expect(await p.read()).toMatchObject({
    fallbackUrl: null,
    redirectStatus: 302,
    passwordProtected: false,
    preview: null,
  });
  await details.getByText('Not protected').waitFor();
  expect(await p.page.locator('.page-head .badge').count()).toBe(0);
  await expectCleanPage(p);
  await p.page.close();
}, 120_000);

test('three rules built, reordered, one removed, one Save: the API has them in the new order', async () => {
  const p = await linkPage('ruled');
  const { details, page } = p;
  const rule = (n: number) => details.getByRole('group', { name: `Rule ${n}`, exact: true });
  for (const [n, country, destination] of [
    [1, 'FR', 'https://example.com/fr'],
    [2, 'DE', 'https://example.com/de'],
    [3, 'NL, BE', 'example.com/nl'],
  ] as const) {
    await details.getByRole('button', { name: 'Add rule' }).click();
    await rule(n).getByLabel('Countries').fill(country);
    await rule(n).getByLabel('Send visitors to').fill(destination);
  }
  // Rule 3: a device, a query key with any value, another with a value, a time window, a param.
  await rule(3).getByLabel('Devices').fill('mobile');
  await rule(3).getByRole('button', { name: 'Add query key' }).click();
  await rule(3).getByLabel('Rule 3 query key 1').fill('promo');
  await rule(3).getByLabel('Any value for query key 1').check();
  await rule(3).getByRole('button', { name: 'Add query key' }).click();
  await rule(3).getByLabel('Rule 3 query key 2').fill('ref');
  await rule(3).getByLabel('Rule 3 query value 2').fill('partner');
  await rule(3).getByLabel('From (UTC)').fill('2030-01-02T03:04');
  await rule(3).getByLabel('Until (UTC)').fill('2030-02-01T00:00');
  await rule(3).getByRole('button', { name: 'Add parameter' }).click();
  await rule(3).getByLabel('Parameter 1 name').fill('lang');
  await rule(3).getByLabel('Parameter 1 value').fill('nl');

  // Rule 3 moves to the top by keyboard: the focus stays on the moved rule's button.
  // A timeout says where the focus was (rarely seen under load, with no cause known yet).
  const focused = async (name: string) => {
    let label: unknown = null;
    const read = async () => {
      label = await page.evaluate(
        'document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.tagName',
      );
      return label === name;
    };
    await waitUntil(read).catch(() => {
      throw new Error(`the focus is on ${JSON.stringify(label)}, not on "${name}"`);
    });
  };
  await details.getByRole('button', { name: 'Move rule 3 up' }).focus();
  await page.keyboard.press('Enter');
  await details.getByText('Rule 3 is now rule 2.').waitFor();
  await focused('Move rule 2 up');
  await page.keyboard.press('Enter');
  await details.getByText('Rule 2 is now rule 1.').waitFor();
  // At the top its Up button is disabled: the focus is on its Down button.
  await focused('Move rule 1 down');
  expect(await rule(1).getByLabel('Countries').inputValue()).toBe('NL, BE');
  // The order is now NL, FR, DE: remove FR (rule 2).
  await details.getByRole('button', { name: 'Remove rule 2' }).click();
  await details.getByText('Removed rule 2.').waitFor();
  await waitUntil(async () => (await page.evaluate('document.activeElement.textContent')) === 'Add rule');
  expect(await rule(3).count()).toBe(0);
  await p.save();

  const expected = [
    {
      when: {
        device: ['mobile'],
        country: ['NL', 'BE'],
        query: { promo: null, ref: 'partner' },
        after: Date.UTC(2030, 0, 2, 3, 4),
        before: Date.UTC(2030, 1, 1),
      },
      destination: 'https://example.com/nl',
      params: { lang: 'nl' },
    },
    { when: { country: ['DE'] }, destination: 'https://example.com/de' },
  ];
  expect(p.patches).toEqual([{ rules: expected }]);
  expect((await p.read()).rules).toEqual(expected);
  await p.page.locator('.page-head .badge', { hasText: '2 rules' }).waitFor();
  await page.goto(`${d.origin}/app`);
  const row = page.locator('.link-item', { hasText: 'sl.test/ruled' });
  await row.waitFor();
  expect(await row.locator('.badge').allTextContents()).toEqual(['2 rules']);

  // What the page shows after a reload is what was saved, in order.
  await page.goto(`${d.origin}/app/links/${p.id}`);
  expect(await rule(1).getByLabel('Countries').inputValue()).toBe('NL, BE');
  expect(await rule(1).getByLabel('From (UTC)').inputValue()).toBe('2030-01-02T03:04');
  expect(await rule(1).getByLabel('Any value for query key 1').isChecked()).toBe(true);
  expect(await rule(2).getByLabel('Send visitors to').inputValue()).toBe('https://example.com/de');
  await expectCleanPage(p);
  await p.page.close();
}, 120_000);

test("a 400 shows under the field it names: a rule's country, the preview's image", async () => {
  const p = await linkPage('refused', {
    rules: [
      { when: { country: ['FR'] }, destination: 'https://example.com/fr' },
      { when: { country: ['DE'] }, destination: 'https://example.com/de' },
    ],
  });
  const { details } = p;
  const rule2 = details.getByRole('group', { name: 'Rule 2', exact: true });
  await rule2.getByLabel('Countries').fill('DE, Germany');
  await details.getByRole('button', { name: 'Save changes' }).click();
  const countries = rule2.getByLabel('Countries');
  await p.page.waitForSelector('input[aria-invalid="true"]');
  expect(await countries.getAttribute('aria-invalid')).toBe('true');
  const errorId = (await countries.getAttribute('aria-describedby'))!;
  expect(await p.page.locator(`[id="${errorId}"]`).textContent()).toBe(
    '"Germany" is not a country code: use two-letter codes such as DE, FR or US.',
  );
  // Only there: not on rule 1, not as an alert on top.
  expect(await details.locator('[aria-invalid="true"]').count()).toBe(1);
  expect(await details.getByRole('alert').count()).toBe(0);
  expect((await p.read()).rules[1].when.country).toEqual(['DE']);

  await rule2.getByLabel('Countries').fill('DE');
  await details.getByLabel('Preview heading').fill('Card');
  await details.getByLabel('Preview image URL').fill('ftp://example.com/card.png');
  await details.getByRole('button', { name: 'Save changes' }).click();
  const image = details.getByLabel('Preview image URL');
  await p.page.waitForSelector('input[aria-invalid="true"]');
  expect(await image.getAttribute('aria-invalid')).toBe('true');
  expect(await details.locator('.field-error').allTextContents()).toEqual([
    'Use a full web address of the image, such as https://example.com/card.png.',
  ]);
  expect((await p.read()).preview).toBeNull();
  await expectCleanPage(p);
  await p.page.close();
}, 120_000);

test('the rules test says which saved rule a visit matches, and its Location', async () => {
  const p = await linkPage('tested', {
    rules: [
      { when: { country: ['FR'] }, destination: 'https://example.com/fr' },
      { when: { device: ['mobile'] }, destination: 'https://example.com/mobile', params: { utm_source: 'rule' } },
    ],
  });
  const panel = p.page.getByRole('region', { name: 'Test the rules' });
  await panel.getByLabel('User agent').fill(IPHONE);
  await panel.getByRole('button', { name: 'Test' }).click();
  await panel.getByText('Matched rule 2.').waitFor();
  expect(await panel.locator('code').textContent()).toBe('https://example.com/mobile?utm_source=rule');

  await panel.getByLabel('User agent').fill('');
  await panel.getByLabel('Query').fill('ref=x');
  await panel.getByRole('button', { name: 'Test' }).click();
  await panel.getByText("No rule matched: the link's own destination.").waitFor();
  expect(await panel.locator('code').textContent()).toBe('https://example.com/');

  // What comes before the rules is what the visitor gets: past the expiry, the fallback.
  const patched = await api(d.t, 'PATCH', `/links/${p.id}`, {
    key: p.key,
    body: { expiresAt: Date.UTC(2031, 0, 1), fallbackUrl: 'https://example.com/ended' },
  });
  expect(patched.status).toBe(200);
  await panel.getByLabel('Time (UTC)').fill('2031-06-01T00:00');
  await panel.getByRole('button', { name: 'Test' }).click();
  await panel
    .getByText('The link has expired or reached its click limit: visitors go to its fallback address.', {
      exact: false,
    })
    .waitFor();
  expect(await panel.locator('code').textContent()).toBe('https://example.com/ended');
  expect((await api(d.t, 'PATCH', `/links/${p.id}`, { key: p.key, body: { status: 'paused' } })).status).toBe(200);
  await panel.getByRole('button', { name: 'Test' }).click();
  await panel.getByText('The link is paused: visitors get the not-found page (404).', { exact: false }).waitFor();
  expect(await panel.locator('code').count()).toBe(0);
  await expectCleanPage(p);
  await p.page.close();
}, 120_000);

test('devices, systems and browsers are offered by the names the statistics use; an unknown device is refused', async () => {
  const p = await linkPage('names', { rules: [{ when: {}, destination: 'https://example.com/all' }] });
  const rule1 = p.details.getByRole('group', { name: 'Rule 1', exact: true });
  const offered = async (label: string) => {
    const list = (await rule1.getByLabel(label).getAttribute('list'))!;
    return p.page.locator(`datalist[id="${list}"] option`).evaluateAll((os) => os.map((o) => o.getAttribute('value')));
  };
  expect(await offered('Devices')).toEqual([
    'desktop',
    'mobile',
    'tablet',
    'smarttv',
    'console',
    'wearable',
    'embedded',
  ]);
  expect(await offered('Browsers')).toContain('Mobile Safari');
  expect(await offered('Operating systems')).toContain('Mac OS');
  await rule1.getByText('Safari also matches the Mobile Safari of iPhones and iPads.').waitFor();
  await rule1.getByText("X's links arrive from t.co: twitter.com and x.com match it too.").waitFor();

  await rule1.getByLabel('Devices').fill('mobile, phone');
  await p.details.getByRole('button', { name: 'Save changes' }).click();
  await p.page.waitForSelector('input[aria-invalid="true"]');
  const devices = rule1.getByLabel('Devices');
  const described = (await devices.getAttribute('aria-describedby'))!.split(' ');
  expect(await p.page.locator(`[id="${described.at(-1)}"]`).textContent()).toBe(
    'Rule 1 when.device: "phone" is not a device (desktop, mobile, tablet, smarttv, console, wearable, embedded)',
  );
  expect((await p.read()).rules[0].when).toEqual({});
  await expectCleanPage(p);
  await p.page.close();
}, 120_000);

test('a link page with rules, a password and a preview: no axe finding light or dark, fits 375 px', async () => {
  const p = await linkPage('usable', {
    password: 'correct horse',
    preview: { title: 'Card', description: 'Text', image: 'https://example.com/card.png' },
    redirectStatus: 301,
    rules: [
      { when: { device: ['mobile'], query: { ref: 'x', promo: null } }, destination: 'https://example.com/m' },
      { when: { country: ['FR'], after: Date.UTC(2030, 0, 1) }, destination: 'https://example.com/fr' },
    ],
  });
  await p.page.setViewportSize({ width: 1280, height: 800 });
  await expectUsableEverywhere(p.page, async () => {
    await p.page.goto(`${d.origin}/app/links/${p.id}`);
    await p.page.getByRole('region', { name: 'Test the rules' }).waitFor();
    await p.page.getByRole('group', { name: 'Rule 2', exact: true }).waitFor();
  });
  await p.page.goto(`${d.origin}/app`);
  await p.page.locator('.link-item .badge').first().waitFor();
  for (const colorScheme of ['light', 'dark'] as const) {
    await p.page.emulateMedia({ colorScheme });
    expect({ colorScheme, violations: await seriousA11yViolations(p.page) }).toEqual({
      colorScheme,
      violations: [],
    });
  }
  await expectCleanPage(p);
  await p.page.close();
}, 120_000);
