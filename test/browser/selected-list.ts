/**
 * The links list as the selection tests open it: a signed-in page on /app?tag=<tag> showing `n`
 * fresh links that carry the tag (made through the API with the account's write key), and the
 * ways a person picks them and reads what the page says.
 */
import { expect } from 'bun:test';
import { api } from '../helpers/app';
import { type Dashboard, signedInPage, waitUntil } from '../helpers/dashboard-browser';

export interface ListOptions {
  params?: Record<string, string>;
  tags?: string[];
}

export async function listOf(d: Dashboard, tag: string, n: number, options: ListOptions = {}) {
  const p = await signedInPage(d);
  const links: { id: string; slug: string; short: string }[] = [];
  for (let i = 0; i < n; i++) {
    const body = {
      destination: `https://example.com/${tag}/${i}`,
      tags: [tag, ...(options.tags ?? [])],
      params: options.params ?? {},
      title: `${tag} ${i}`,
    };
    const created = await api(d.t, 'POST', '/links', { key: p.key, body });
    expect(created.status).toBe(201);
    const { id, slug, shortUrl } = created.body;
    links.push({ id, slug, short: shortUrl.replace('https://', '') });
  }
  await p.page.goto(`${d.origin}/app?tag=${tag}`);
  await waitUntil(async () => (await p.page.locator('.link-item').count()) === n);
  const read = async (id: string) => (await api(d.t, 'GET', `/links/${id}`, { key: p.key })).body;
  const select = (i: number) => p.page.getByRole('checkbox', { name: `Select ${links[i]!.short}` }).check();
  const selected = () => p.page.locator('.selection-count').textContent();
  return { ...p, links, read, select, selected };
}
