/**
 * A Shlink that answers its REST API v3 as Shlink does (shlinkio/shlink, module/Rest): short
 * URLs paged with `pagination` {currentPage, pagesCount, itemsPerPage, itemsInCurrentPage,
 * totalItems}, ordered by `orderBy`; a short URL's visits NEWEST FIRST, filtered by
 * startDate/endDate (inclusive) and `domain`; problem+json errors (401 missing-authentication or
 * invalid-api-key, 404 short-url-not-found); and, in front of it, a proxy's rate limit (429 with
 * Retry-After) when asked. Seeded with links and visits, or `generated`: that many links with
 * that many visits each, computed on the fly (100,000 links and 1,000,000 visits hold no memory).
 */

import { type FakeServer, json, type RateLimit, serveFake } from './server';

export interface ShlinkVisitSeed {
  date: string;
  referer?: string;
  userAgent?: string;
  countryCode?: string;
  cityName?: string;
  potentialBot?: boolean;
}

export interface ShlinkLinkSeed {
  shortCode: string;
  longUrl: string;
  domain?: string | null;
  title?: string | null;
  tags?: string[];
  dateCreated: string;
  validSince?: string | null;
  validUntil?: string | null;
  maxVisits?: number | null;
  visits?: ShlinkVisitSeed[];
}

export interface ShlinkFakeOptions {
  apiKey?: string;
  links?: ShlinkLinkSeed[];
  generated?: { links: number; visitsPerLink: number };
  rateLimit?: RateLimit;
  retryAfter?: string;
  /** At most this many short URLs a page, whatever is asked (a Shlink may give fewer than asked). */
  pageCap?: number;
}

export interface ShlinkFake extends FakeServer {
  apiKey: string;
}

const T0 = Date.parse('2024-01-01T00:00:00Z');
const HOUR = 3_600_000;

/** Shlink's date: ATOM, seconds, +00:00. */
const atom = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');

function problem(status: number, type: string, title: string, detail: string): Response {
  return new Response(JSON.stringify({ type: `https://shlink.io/api/error/${type}`, title, detail, status }), {
    status,
    headers: { 'content-type': 'application/problem+json' },
  });
}

interface Visits {
  total: number;
  /** The visit at a position, oldest (0) to newest. */
  at(i: number): Record<string, unknown>;
  date(i: number): number;
}

function seededVisits(seeds: ShlinkVisitSeed[]): Visits {
  const sorted = [...seeds].sort((a, b) => Date.parse(a.date) - Date.parse(b.date));
  return {
    total: sorted.length,
    date: (i) => Date.parse(sorted[i]!.date),
    at(i) {
      const v = sorted[i]!;
      return {
        referer: v.referer ?? '',
        date: atom(Date.parse(v.date)),
        userAgent: v.userAgent ?? '',
        visitLocation:
          v.countryCode === undefined && v.cityName === undefined
            ? null
            : {
                countryCode: v.countryCode ?? '',
                countryName: '',
                regionName: '',
                cityName: v.cityName ?? '',
                latitude: 0,
                longitude: 0,
                timezone: '',
                isEmpty: false,
              },
        potentialBot: v.potentialBot ?? false,
        visitedUrl: '',
        redirectUrl: null,
      };
    },
  };
}

/** Link n's visit i of the generated set: one an hour, each link a second apart. */
function generatedVisits(n: number, count: number): Visits {
  const date = (i: number) => T0 + i * HOUR + (n % 3600) * 1000;
  return {
    total: count,
    date,
    at: (i) => ({
      referer: i % 3 === 0 ? 'https://news.example/' : '',
      date: atom(date(i)),
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36',
      visitLocation: {
        countryCode: 'FR',
        countryName: 'France',
        regionName: '',
        cityName: 'Lyon',
        latitude: 0,
        longitude: 0,
        timezone: '',
        isEmpty: false,
      },
      potentialBot: false,
      visitedUrl: '',
      redirectUrl: null,
    }),
  };
}

export function startShlinkFake(options: ShlinkFakeOptions): ShlinkFake {
  const apiKey = options.apiKey ?? 'shlink-key-0123456789';
  const seeds = [...(options.links ?? [])].sort((a, b) => Date.parse(a.dateCreated) - Date.parse(b.dateCreated));
  const generated = options.generated;
  const total = generated?.links ?? seeds.length;

  function seedAt(i: number): ShlinkLinkSeed & { visits: ShlinkVisitSeed[] } {
    if (generated === undefined) return { visits: [], ...seeds[i]! };
    return {
      shortCode: `g${i}`,
      longUrl: `https://example.com/page/${i}`,
      dateCreated: atom(T0 + i * 1000),
      visits: [],
    };
  }
  function visitsOf(i: number): Visits {
    return generated === undefined ? seededVisits(seedAt(i).visits) : generatedVisits(i, generated.visitsPerLink);
  }
  function find(shortCode: string, domain: string | null): number {
    if (generated !== undefined) {
      const n = /^g(\d+)$/.exec(shortCode);
      return n !== null && Number(n[1]) < total && domain === null ? Number(n[1]) : -1;
    }
    return seeds.findIndex((s) => s.shortCode === shortCode && (s.domain ?? null) === domain);
  }
  function shortUrl(i: number, origin: string) {
    const s = seedAt(i);
    const visits = visitsOf(i);
    return {
      shortCode: s.shortCode,
      shortUrl: `${s.domain ? `https://${s.domain}` : origin}/${s.shortCode}`,
      longUrl: s.longUrl,
      deviceLongUrls: { android: null, ios: null, desktop: null },
      dateCreated: s.dateCreated,
      tags: s.tags ?? [],
      meta: { validSince: s.validSince ?? null, validUntil: s.validUntil ?? null, maxVisits: s.maxVisits ?? null },
      domain: s.domain ?? null,
      title: s.title ?? null,
      crawlable: false,
      forwardQuery: true,
      visitsSummary: { total: visits.total, nonBots: visits.total, bots: 0 },
      hasRedirectRules: false,
    };
  }
  function paging(page: number, size: number, count: number, inPage: number) {
    return {
      currentPage: page,
      pagesCount: Math.ceil(count / size),
      itemsPerPage: size,
      itemsInCurrentPage: inPage,
      totalItems: count,
    };
  }

  const fake = serveFake(
    (req, url) => {
      const key = req.headers.get('x-api-key');
      if (key === null)
        return problem(
          401,
          'missing-authentication',
          'Invalid authorization',
          'Expected one of the following authentication headers, ["X-Api-Key"], but none were provided',
        );
      if (key !== apiKey)
        return problem(401, 'invalid-api-key', 'Invalid API key', 'Provided API key does not exist or is invalid.');
      const q = url.searchParams;
      const page = Math.max(1, Number(q.get('page') ?? 1));
      if (url.pathname === '/rest/v3/short-urls') {
        const size = Math.min(Number(q.get('itemsPerPage') ?? 10), options.pageCap ?? Number.POSITIVE_INFINITY);
        // Shlink's default order is newest first; the importer asks dateCreated-ASC.
        const ascending = q.get('orderBy') === 'dateCreated-ASC';
        const from = (page - 1) * size;
        const indexes: number[] = [];
        for (let k = from; k < Math.min(total, from + size); k++) indexes.push(ascending ? k : total - 1 - k);
        const data = indexes.map((i) => shortUrl(i, fake.url));
        return json({ shortUrls: { data, pagination: paging(page, size, total, data.length) } });
      }
      const visitsPath = /^\/rest\/v3\/short-urls\/([^/]+)\/visits$/.exec(url.pathname);
      if (visitsPath !== null) {
        const shortCode = decodeURIComponent(visitsPath[1]!);
        const domain = q.get('domain');
        const i = find(shortCode, domain === null || domain === '' ? null : domain);
        if (i === -1)
          return problem(
            404,
            'short-url-not-found',
            'Short URL not found',
            `No URL found with short code "${shortCode}"`,
          );
        const visits = visitsOf(i);
        const start = q.get('startDate') === null ? Number.NEGATIVE_INFINITY : Date.parse(q.get('startDate')!);
        const end = q.get('endDate') === null ? Number.POSITIVE_INFINITY : Date.parse(q.get('endDate')!);
        // The positions in range, oldest..newest (dates rise with the position).
        let lo = 0;
        while (lo < visits.total && visits.date(lo) < start) lo++;
        let hi = visits.total;
        while (hi > lo && visits.date(hi - 1) > end) hi--;
        const count = hi - lo;
        const size = Number(q.get('itemsPerPage') ?? 10);
        const data: Record<string, unknown>[] = [];
        // Newest first, as Shlink lists them.
        for (let k = (page - 1) * size; k < Math.min(count, page * size); k++) data.push(visits.at(hi - 1 - k));
        return json({ visits: { data, pagination: paging(page, size, count, data.length) } });
      }
      return problem(404, 'not-found', 'Not found', `Requested route does not exist.`);
    },
    options.rateLimit,
    () => json({ title: 'Too many requests' }, 429, { 'retry-after': options.retryAfter ?? '7' }),
  );
  return Object.assign(fake, { apiKey });
}
