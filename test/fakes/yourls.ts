/**
 * A YOURLS that answers `yourls-api.php?action=stats` as YOURLS does (YOURLS/YOURLS,
 * includes/functions.php yourls_get_stats, includes/auth.php): links ordered by `filter`
 * (`last`: newest first), `limit` and `start`, as an object keyed `link_1`, `link_2`... (left
 * out when there are none), each {shorturl, url, title, timestamp `YYYY-MM-DD hh:mm:ss` UTC, ip,
 * clicks} with counts as strings (MySQL's), then stats {total_links, total_clicks}; a refused
 * signature or password answered 403 {message: "Please log in" / "Invalid username or
 * password", errorCode: "403"}. It may live in a folder (`folder`).
 */

import { type FakeServer, json, type RateLimit, serveFake } from './server';

export interface YourlsLinkSeed {
  keyword: string;
  url: string;
  title?: string;
  timestamp: string;
  clicks: number;
}

export interface YourlsFakeOptions {
  signature?: string;
  username?: string;
  password?: string;
  folder?: string;
  links: YourlsLinkSeed[];
  rateLimit?: RateLimit;
}

export interface YourlsFake extends FakeServer {
  signature: string;
  /** Where YOURLS is installed (its YOURLS_SITE). */
  site: string;
}

export function startYourlsFake(options: YourlsFakeOptions): YourlsFake {
  const signature = options.signature ?? 'a1b2c3d4e5';
  const folder = options.folder ?? '';
  const sorted = [...options.links].sort((a, b) => (a.timestamp < b.timestamp ? 1 : -1));
  const fake = serveFake(
    (_req, url) => {
      const q = url.searchParams;
      if (url.pathname !== `${folder}/yourls-api.php`) return new Response('Not found', { status: 404 });
      const byPassword = q.get('username') !== null;
      const valid = byPassword
        ? q.get('username') === options.username && q.get('password') === options.password
        : q.get('signature') === signature;
      if (!valid)
        return json(
          { message: byPassword ? 'Invalid username or password' : 'Please log in', errorCode: '403', callback: '' },
          403,
        );
      if (q.get('action') !== 'stats')
        return json({ errorCode: '400', message: 'Unknown or missing "action" parameter' }, 400);
      const limit = Number.parseInt(q.get('limit') ?? '10', 10) || 0;
      const start = Number.parseInt(q.get('start') ?? '0', 10) || 0;
      const out: Record<string, unknown> = {};
      if (limit > 0) {
        const page = sorted.slice(start, start + limit);
        if (page.length > 0)
          out.links = Object.fromEntries(
            page.map((l, i) => [
              `link_${i + 1}`,
              {
                shorturl: `${fake.url}${folder}/${l.keyword}`,
                url: l.url,
                title: l.title ?? '',
                timestamp: l.timestamp,
                ip: '203.0.113.9',
                clicks: String(l.clicks),
              },
            ]),
          );
      }
      out.stats = { total_links: sorted.length, total_clicks: sorted.reduce((n, l) => n + l.clicks, 0) };
      out.statusCode = '200';
      out.message = 'success';
      return json(out);
    },
    options.rateLimit,
    () => new Response('Too Many Requests', { status: 429, headers: { 'retry-after': '2' } }),
  );
  return Object.assign(fake, { signature, site: `${fake.url}${folder}` });
}
