/**
 * A Bitly that answers its API v4 as Bitly does: `/v4/groups`; a group's bitlinks (`size`,
 * `search_after`, `archived` on|off|both, default off) with `pagination` {prev, next, size, page,
 * total, search_after} (an empty search_after on the last page); a bitlink's `clicks` per day,
 * newest first, zero days included, dates `YYYY-MM-DDT00:00:00+0000`; errors {message,
 * description, resource} (403 FORBIDDEN for a refused token); its rate limit as `429` or as
 * `403 RATE_LIMIT_EXCEEDED` (the two Bitly sends), without Retry-After. With `rawControlTitles`
 * titles are sent with their control characters raw, as Bitly does, which strict JSON refuses.
 */

import { type FakeServer, json, type RateLimit, serveFake } from './server';

export interface BitlinkSeed {
  id: string;
  long_url: string;
  title?: string | null;
  tags?: string[];
  created_at: string;
  archived?: boolean;
  custom_bitlinks?: string[];
  /** Clicks per day: YYYY-MM-DD → clicks. */
  clicks?: Record<string, number>;
}

export interface BitlyFakeOptions {
  token?: string;
  groups: { guid: string; links: BitlinkSeed[] }[];
  rateLimit?: RateLimit;
  /** How the rate limit is refused (default 429). */
  rateLimitStatus?: 429 | 403;
  rawControlTitles?: boolean;
}

export interface BitlyFake extends FakeServer {
  token: string;
}

function error(status: number, message: string, description: string, resource: string): Response {
  return json({ message, description, resource }, status);
}

export function startBitlyFake(options: BitlyFakeOptions): BitlyFake {
  const token = options.token ?? 'bitly-token-0123456789';
  const body = (value: unknown) => {
    let text = JSON.stringify(value);
    // Bitly's trap: control characters raw inside strings.
    if (options.rawControlTitles)
      text = text.replace(/\\u00([01][0-9a-f])/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return new Response(text, { headers: { 'content-type': 'application/json' } });
  };
  const find = (id: string) => options.groups.flatMap((g) => g.links).find((l) => l.id === id);

  const fake = serveFake(
    (req, url) => {
      if (req.headers.get('authorization') !== `Bearer ${token}`)
        return error(
          403,
          'FORBIDDEN',
          'You are currently forbidden to access this resource.',
          url.pathname.split('/')[2] ?? '',
        );
      const q = url.searchParams;
      if (url.pathname === '/v4/groups')
        return json({
          groups: options.groups.map((g) => ({
            created: '2020-01-01T00:00:00+0000',
            modified: '2020-01-01T00:00:00+0000',
            bsds: [],
            guid: g.guid,
            organization_guid: 'Oa1b2c3d4e5',
            name: g.guid,
            is_active: true,
            role: 'org-admin',
            references: {},
          })),
        });
      const list = /^\/v4\/groups\/([^/]+)\/bitlinks$/.exec(url.pathname);
      if (list !== null) {
        const group = options.groups.find((g) => g.guid === list[1]);
        if (group === undefined) return error(404, 'NOT_FOUND', 'The requested resource was not found.', 'groups');
        const archived = q.get('archived') ?? 'off';
        const links = group.links.filter((l) =>
          archived === 'both' ? true : archived === 'on' ? l.archived === true : l.archived !== true,
        );
        const size = Math.min(Number(q.get('size') ?? 50), 100);
        const from = q.get('search_after') === null ? 0 : Number(atob(q.get('search_after')!));
        const slice = links.slice(from, from + size);
        const more = from + size < links.length;
        const after = more ? btoa(String(from + size)) : '';
        return body({
          links: slice.map((l) => ({
            references: { group: `https://api-ssl.bitly.com/v4/groups/${group.guid}` },
            link: `https://${l.id}`,
            id: l.id,
            long_url: l.long_url,
            title: l.title ?? '',
            archived: l.archived ?? false,
            created_at: l.created_at,
            created_by: 'someone',
            client_id: 'a1b2c3',
            custom_bitlinks: l.custom_bitlinks ?? [],
            tags: l.tags ?? [],
            launchpad_ids: [],
            qr_code_ids: [],
            deeplinks: [],
            campaign_ids: [],
            is_deleted: false,
          })),
          pagination: {
            prev: '',
            next: more
              ? `https://api-ssl.bitly.com/v4/groups/${group.guid}/bitlinks?search_after=${after}&size=${size}`
              : '',
            size,
            page: 1,
            total: links.length,
            search_after: after,
          },
        });
      }
      const clicks = /^\/v4\/bitlinks\/(.+)\/clicks$/.exec(url.pathname);
      if (clicks !== null) {
        const link = find(clicks[1]!);
        if (link === undefined) return error(404, 'NOT_FOUND', 'The requested resource was not found.', 'bitlinks');
        const days = Object.entries(link.clicks ?? {}).sort(([a], [b]) => (a < b ? 1 : -1));
        return json({
          link_clicks: days.map(([day, n]) => ({ clicks: n, date: `${day}T00:00:00+0000` })),
          units: Number(q.get('units') ?? -1),
          unit: q.get('unit') ?? 'day',
          unit_reference: '2024-12-31T00:00:00+0000',
        });
      }
      if (url.pathname === '/v4/user/platform_limits')
        return json({
          platform_limits: [
            { endpoint: '/v4/groups/{group_guid}/bitlinks', methods: [{ name: 'GET', limit: 150, count: 0 }] },
          ],
        });
      return error(404, 'NOT_FOUND', 'The requested resource was not found.', '');
    },
    options.rateLimit,
    () =>
      options.rateLimitStatus === 403
        ? error(403, 'RATE_LIMIT_EXCEEDED', 'You have exceeded your rate limit for this resource.', 'bitlinks')
        : error(429, 'RATE_LIMIT_EXCEEDED', 'You have exceeded your rate limit for this resource.', 'bitlinks'),
  );
  return Object.assign(fake, { token });
}
