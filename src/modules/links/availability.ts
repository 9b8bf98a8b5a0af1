/**
 * A link's availability: what a visitor of its short link gets now (docs/behaviour.md,
 * "Availability"). The rule is written three times over, once for a row in memory (the Link's
 * `availability` field, links.ts toLinks) and once as SQL per engine (the list's and the
 * count's `availability` filter, sqlite/store.ts and postgres/store.ts), side by side here so
 * that they cannot drift apart.
 *
 * The order is the redirect's own (redirect/redirect.ts): paused (404) before expired (410)
 * before the click limit (410). Archived links redirect, so archived is no reason of its own.
 * Clicks are the stored human clickCount, as the Link shows it: a click the redirect let
 * through counts once it is written (within SLINK_FLUSH_MS plus a second), like clickCount.
 */
import { and, eq, isNotNull, isNull, lte, ne, or, type SQL, sql } from 'drizzle-orm';
import type { Pg } from '../../db/postgres/client';
import { linkCounters, links } from './table';

export const AVAILABILITIES = ['live', 'paused', 'expired', 'limit'] as const;
export type Availability = (typeof AVAILABILITIES)[number];

interface AvailabilityFacts {
  status: 'active' | 'paused' | 'archived';
  expiresAt: number | null;
  clickLimit: number | null;
  clickCount: number;
}

/** The availability of a link at `now` (epoch ms, the injected clock). */
export function availabilityOf(link: AvailabilityFacts, now: number): Availability {
  if (link.status === 'paused') return 'paused';
  // The redirect answers 410 from the instant itself on (now >= expiresAt).
  if (link.expiresAt !== null && now >= link.expiresAt) return 'expired';
  if (link.clickLimit !== null && link.clickCount >= link.clickLimit) return 'limit';
  return 'live';
}

/** The same rule as a condition on `links` joined to `link_counters` (repo.ts linkRowsFrom). */
export function availabilityCondition(availability: Availability, now: number): SQL {
  const paused = eq(links.status, 'paused');
  const expired = and(isNotNull(links.expiresAt), lte(links.expiresAt, now))!;
  const limited = and(isNotNull(links.clickLimit), sql`${linkCounters.clicks} >= ${links.clickLimit}`)!;
  const notExpired = or(isNull(links.expiresAt), sql`${links.expiresAt} > ${now}`)!;
  switch (availability) {
    case 'paused':
      return paused;
    case 'expired':
      return and(ne(links.status, 'paused'), expired)!;
    case 'limit':
      return and(ne(links.status, 'paused'), notExpired, limited)!;
    case 'live':
      return and(
        ne(links.status, 'paused'),
        notExpired,
        or(isNull(links.clickLimit), sql`${linkCounters.clicks} < ${links.clickLimit}`)!,
      )!;
  }
}

/** The same rule in PostgreSQL, over `l` (links) joined to `c` (link_counters). */
export function availabilityConditionPg(sql: Pg, availability: Availability, now: number) {
  switch (availability) {
    case 'paused':
      return sql`l.status = 'paused'`;
    case 'expired':
      return sql`(l.status <> 'paused' AND l.expires_at IS NOT NULL AND l.expires_at <= ${now})`;
    case 'limit':
      return sql`(l.status <> 'paused' AND (l.expires_at IS NULL OR l.expires_at > ${now})
        AND l.click_limit IS NOT NULL AND c.clicks >= l.click_limit)`;
    case 'live':
      return sql`(l.status <> 'paused' AND (l.expires_at IS NULL OR l.expires_at > ${now})
        AND (l.click_limit IS NULL OR c.clicks < l.click_limit))`;
  }
}
