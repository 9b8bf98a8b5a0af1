/**
 * A Kutt that answers its API v2 as Kutt does (thedevs-network/kutt, server/handlers):
 * `GET /api/v2/links?limit=&skip=` → {total, limit, skip, data} with `limit` capped at 50, links
 * newest first; a link as Kutt sanitises it (id = its uuid, address, target, description,
 * domain, banned, password as a boolean, visit_count, created_at, updated_at, expire_in, link);
 * errors {error} (401 "API key is not correct."); its rate limit as 429 with Retry-After.
 */

import { type FakeServer, json, type RateLimit, serveFake } from './server';

export interface KuttLinkSeed {
  id: string;
  address: string;
  target: string;
  description?: string | null;
  domain?: string | null;
  banned?: boolean;
  visit_count: number;
  created_at: string;
  expire_in?: string | null;
}

export interface KuttFakeOptions {
  apiKey?: string;
  links: KuttLinkSeed[];
  rateLimit?: RateLimit;
}

export interface KuttFake extends FakeServer {
  apiKey: string;
}

export function startKuttFake(options: KuttFakeOptions): KuttFake {
  const apiKey = options.apiKey ?? 'kutt-key-0123456789';
  const newestFirst = [...options.links].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
  const fake = serveFake(
    (req, url) => {
      const key = req.headers.get('x-api-key');
      if (key === null) return json({ error: 'Unauthorized' }, 401);
      if (key !== apiKey) return json({ error: 'API key is not correct.' }, 401);
      if (url.pathname !== '/api/v2/links') return json({ error: 'Not found.' }, 404);
      const limit = Math.min(Number.parseInt(url.searchParams.get('limit') ?? '', 10) || 10, 50);
      const skip = Number.parseInt(url.searchParams.get('skip') ?? '', 10) || 0;
      const data = newestFirst.slice(skip, skip + limit).map((l) => ({
        id: l.id,
        address: l.address,
        banned: l.banned ?? false,
        created_at: l.created_at,
        updated_at: l.created_at,
        password: false,
        description: l.description ?? null,
        expire_in: l.expire_in ?? null,
        target: l.target,
        visit_count: l.visit_count,
        domain: l.domain ?? null,
        link: `https://${l.domain ?? 'kutt.it'}/${l.address}`,
      }));
      return json({ total: newestFirst.length, limit, skip, data });
    },
    options.rateLimit,
    () => json({ error: 'Too many requests, please try again later.' }, 429, { 'retry-after': '3' }),
  );
  return Object.assign(fake, { apiKey });
}
