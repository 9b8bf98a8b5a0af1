/**
 * A Dub that answers its API as Dub does (dubinc/dub, apps/web): `GET /links` (pageSize at most
 * 100; `page`, or the cursor `startingAfter` with sortBy=createdAt) answering an array of link
 * objects; `GET /events?event=clicks&linkId=` (limit at most 1000, `page`, sortOrder, interval
 * or start/end) answering click events {event, timestamp, click: {...}, link: {...}}, only on a
 * plan that has them (403 "Unauthorized: Need higher plan." below Business); errors {error:
 * {code, message, doc_url}} (401 unauthorized); its rate limit as 429 rate_limit_exceeded with
 * Retry-After set to the epoch millisecond the window resets, as Dub sends it.
 */

import { type FakeServer, json, type RateLimit, serveFake } from './server';

export interface DubClickSeed {
  id: string;
  timestamp: string;
  country?: string;
  city?: string;
  device?: string;
  browser?: string;
  os?: string;
  referer?: string;
  refererUrl?: string;
  ua?: string;
}

export interface DubLinkSeed {
  id: string;
  domain: string;
  key: string;
  url: string;
  title?: string | null;
  tags?: string[];
  createdAt: string;
  expiresAt?: string | null;
  archived?: boolean;
  clicks?: DubClickSeed[];
}

export interface DubFakeOptions {
  token?: string;
  plan?: 'free' | 'pro' | 'business';
  links: DubLinkSeed[];
  rateLimit?: RateLimit;
  /** How far ahead of now the window resets, in ms (Retry-After is that moment). */
  resetInMs?: number;
}

export interface DubFake extends FakeServer {
  token: string;
}

function dubError(status: number, code: string, message: string): Response {
  return json(
    { error: { code, message, doc_url: `https://dub.co/docs/api-reference/errors#${code.replace('_', '-')}` } },
    status,
  );
}

export function startDubFake(options: DubFakeOptions): DubFake {
  const token = options.token ?? 'dub_0123456789abcdef';
  const plan = options.plan ?? 'business';
  const byId = [...options.links].sort((a, b) => (a.id < b.id ? -1 : 1));
  const linkJson = (l: DubLinkSeed) => ({
    id: l.id,
    domain: l.domain,
    key: l.key,
    url: l.url,
    trackConversion: false,
    externalId: null,
    tenantId: null,
    programId: null,
    partnerId: null,
    archived: l.archived ?? false,
    expiresAt: l.expiresAt ?? null,
    expiredUrl: null,
    password: null,
    proxy: false,
    title: l.title ?? null,
    description: null,
    image: null,
    video: null,
    rewrite: false,
    doIndex: false,
    ios: null,
    android: null,
    geo: null,
    publicStats: false,
    tags: (l.tags ?? []).map((name, i) => ({ id: `tag_${i}`, name, color: 'blue' })),
    folderId: null,
    webhookIds: [],
    comments: null,
    shortLink: `https://${l.domain}/${l.key}`,
    qrCode: `https://api.dub.co/qr?url=https://${l.domain}/${l.key}`,
    utm_source: null,
    utm_medium: null,
    utm_campaign: null,
    utm_term: null,
    utm_content: null,
    testVariants: null,
    testStartedAt: null,
    testCompletedAt: null,
    userId: 'user_1',
    workspaceId: 'ws_1',
    clicks: l.clicks?.length ?? 0,
    leads: 0,
    conversions: 0,
    sales: 0,
    saleAmount: 0,
    lastClicked: l.clicks?.at(-1)?.timestamp ?? null,
    createdAt: l.createdAt,
    updatedAt: l.createdAt,
    projectId: 'ws_1',
  });

  const fake = serveFake(
    (req, url) => {
      const auth = req.headers.get('authorization');
      if (auth === null) return dubError(401, 'unauthorized', 'Missing Authorization header.');
      if (auth !== `Bearer ${token}`) return dubError(401, 'unauthorized', 'Unauthorized: Invalid API key.');
      const q = url.searchParams;
      if (url.pathname === '/links') {
        const size = Number(q.get('pageSize') ?? 100);
        if (size > 100) return dubError(422, 'unprocessable_entity', 'Max page size is 100.');
        const after = q.get('startingAfter');
        const page = Number(q.get('page') ?? 1);
        if (after !== null && q.get('page') !== null)
          return dubError(
            422,
            'unprocessable_entity',
            'You cannot use both page and startingAfter/endingBefore at the same time. Please use one pagination method.',
          );
        const from = after === null ? (page - 1) * size : byId.findIndex((l) => l.id === after) + 1;
        return json(byId.slice(from, from + size).map(linkJson));
      }
      if (url.pathname === '/events') {
        if (plan !== 'business') return dubError(403, 'forbidden', 'Unauthorized: Need higher plan.');
        const limit = Number(q.get('limit') ?? 100);
        if (limit > 1000) return dubError(422, 'unprocessable_entity', 'Max page size is 1000.');
        const page = Number(q.get('page') ?? 1);
        const start = q.get('start') === null ? Number.NEGATIVE_INFINITY : Date.parse(q.get('start')!);
        const end = q.get('end') === null ? Number.POSITIVE_INFINITY : Date.parse(q.get('end')!);
        const linkId = q.get('linkId');
        const events = byId
          .filter((l) => linkId === null || l.id === linkId)
          .flatMap((l) => (l.clicks ?? []).map((c) => ({ l, c })))
          .filter(({ c }) => Date.parse(c.timestamp) >= start && Date.parse(c.timestamp) <= end)
          .sort((a, b) => Date.parse(a.c.timestamp) - Date.parse(b.c.timestamp));
        if (q.get('sortOrder') !== 'asc') events.reverse();
        return json(
          events.slice((page - 1) * limit, page * limit).map(({ l, c }) => ({
            event: 'click',
            timestamp: c.timestamp,
            click: {
              id: c.id,
              timestamp: c.timestamp,
              url: l.url,
              country: c.country ?? 'Unknown',
              city: c.city ?? 'Unknown',
              region: 'Unknown',
              continent: 'Unknown',
              device: c.device ?? 'Desktop',
              browser: c.browser ?? 'Chrome',
              os: c.os ?? 'Mac OS',
              ...(c.ua === undefined ? {} : { ua: c.ua }),
              trigger: 'link',
              referer: c.referer ?? '(direct)',
              refererUrl: c.refererUrl ?? '(direct)',
              qr: false,
              ip: '203.0.113.7',
            },
            link: linkJson(l),
          })),
        );
      }
      return dubError(404, 'not_found', 'Not found.');
    },
    options.rateLimit,
    () => {
      const reset = String(Date.now() + (options.resetInMs ?? 5000));
      return new Response(
        JSON.stringify({
          error: {
            code: 'rate_limit_exceeded',
            message: 'Too many requests.',
            doc_url: 'https://dub.co/docs/api-reference/errors#rate-limit_exceeded',
          },
        }),
        {
          status: 429,
          headers: {
            'content-type': 'application/json',
            'retry-after': reset,
            'x-ratelimit-limit': '60',
            'x-ratelimit-remaining': '0',
            'x-ratelimit-reset': reset,
          },
        },
      );
    },
  );
  return Object.assign(fake, { token });
}
