/**
 * YOURLS, through `yourls-api.php?action=stats` (a signature token, or `username:password`):
 * links 1,000 a request (`limit`, `start`), newest first. YOURLS answers them as an object keyed
 * `link_1`, `link_2`..., with counts as strings, and leaves `links` out when there are none.
 * It keeps a click count per link (its log table is not in the API), so each carries its total.
 * Its timestamps are UTC (YOURLS sets PHP's zone to UTC).
 */

import type { ImportSource, SourceLink, SourceOptions, SourcePage } from '../source';
import { SourceError } from '../source';
import { baseOf, hostOf, type Json, num, obj, pathOf, shownAddress, str, time } from './fields';
import { type HttpAnswer, SourceHttp } from './http';

const PAGE_SIZE = 1000;

function describe(answer: HttpAnswer): string {
  // YOURLS's errors: {message, errorCode} (its HTTP status follows errorCode).
  const said = str(obj(answer.body)?.message);
  const words = said === null ? `${answer.status}` : `${answer.status} ${said}`;
  if (answer.status === 401 || answer.status === 403)
    return `YOURLS refused the credentials (${words}); give the signature token from its Tools page, or a username and password (username:password)`;
  return `YOURLS refused the request (${words})`;
}

/** The links of one answer, in YOURLS's order (link_1, link_2...). */
function linksOf(body: Json | null): Json[] {
  const links = obj(body?.links);
  if (links === null) return [];
  return Object.keys(links)
    .map((key) => ({ n: Number(/^link_(\d+)$/.exec(key)?.[1] ?? Number.NaN), value: obj(links[key]) }))
    .filter((e): e is { n: number; value: Json } => !Number.isNaN(e.n) && e.value !== null)
    .sort((a, b) => a.n - b.n)
    .map((e) => e.value);
}

export function yourlsLink(raw: Json, base: string): SourceLink | null {
  const shorturl = str(raw.shorturl);
  if (shorturl === null) return null;
  // The keyword is what follows YOURLS's own address (it may live in a folder).
  const slug = shorturl.startsWith(`${base}/`)
    ? decodeURIComponent(shorturl.slice(base.length + 1))
    : (pathOf(shorturl)?.split('/').pop() ?? null);
  return {
    sourceId: shorturl,
    url: str(raw.url) ?? '',
    slug: slug === '' ? null : slug,
    domain: hostOf(shorturl),
    title: str(raw.title),
    tags: [],
    createdAt: time(raw.timestamp),
    expiresAt: null,
    clickLimit: null,
    archived: false,
    totalClicks: num(raw.clicks),
    history: 'total',
  };
}

export function yourlsSource(options: SourceOptions): ImportSource {
  const base = baseOf(options.url);
  const token = options.token;
  if (base === null) throw new SourceError('yourls needs the address YOURLS is installed at', false, 'url');
  if (token === null || token === '')
    throw new SourceError('yourls needs the signature token from its Tools page, or username:password', false, 'token');
  const colon = token.indexOf(':');
  const credentials: Record<string, string> =
    colon > 0 ? { username: token.slice(0, colon), password: token.slice(colon + 1) } : { signature: token };
  const http = new SourceHttp({
    fetch: options.fetch,
    sleep: options.sleep,
    allowPrivate: options.allowPrivate ?? false,
    product: 'YOURLS',
    secrets: [token, credentials.password ?? null, credentials.signature ?? null],
    describe,
  });
  /** The first link of the first page: an old YOURLS that ignores `start` answers it again. */
  let firstSeen: string | null = null;

  async function stats(start: number, limit: number, signal: AbortSignal): Promise<Json> {
    const query = new URLSearchParams({
      action: 'stats',
      filter: 'last',
      limit: String(limit),
      start: String(start),
      format: 'json',
      ...credentials,
    });
    const answer = await http.get(`${base}/yourls-api.php?${query}`, {}, signal, []);
    const body = obj(answer.body);
    if (body === null || obj(body.stats) === null)
      throw new SourceError(
        `${shownAddress(`${base}/yourls-api.php`)} did not answer as YOURLS does; check the address`,
        false,
        'url',
      );
    return body;
  }

  return {
    name: 'yourls',
    async check(signal) {
      await stats(0, 1, signal);
    },
    async page(cursor, signal): Promise<SourcePage> {
      const start = cursor === null ? 0 : Number(cursor);
      if (!Number.isInteger(start) || start < 0) throw new SourceError(`yourls: ${cursor} is not an offset`, false);
      const body = await stats(start, PAGE_SIZE, signal);
      const raw = linksOf(body);
      const first = str(raw[0]?.shorturl);
      if (start === 0) firstSeen = first;
      else if (first !== null && first === firstSeen) return { links: [], next: null };
      const links = raw.map((r) => yourlsLink(r, base)).filter((l) => l !== null);
      const total = num(obj(body.stats)?.total_links) ?? 0;
      const reached = start + raw.length;
      return { links, next: raw.length === PAGE_SIZE && reached < total ? String(reached) : null };
    },
  };
}
