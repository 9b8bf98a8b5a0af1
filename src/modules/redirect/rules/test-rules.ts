/**
 * POST /links/{id}/rules/test: what a described visit of the bare short link would get, by the
 * redirect's own checks in its order (redirect.ts: paused, expired, click limit, password,
 * preview) and its own rule evaluation (match.ts) over the link as the slug index holds it.
 * Records nothing.
 */
import { isIP } from 'node:net';
import { invalid, notFound } from '../../../lib/errors';
import { type Access, requireSees } from '../../access/public';
import { type GeoLookup, isPreviewCrawler } from '../../clicks/public';
import type { RedirectDeps } from '../deps';
import { HAS_PASSWORD, HAS_PREVIEW, type LinkTable, PAUSED } from '../link-table';
import { withVisitorQuery } from '../location';
import { matchRule } from './match';
import type { RulesTest, RulesTestInput } from './model';
import { RuleVisitor } from './visitor';

/** The query object as the raw query a visitor would send. */
function rawQueryOf(query: Readonly<Record<string, string>> | undefined): string {
  if (query === undefined) return '';
  return Object.entries(query)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
}

/** Expired or past the click limit: the fallback URL if the link has one, else the 410 page. */
function ended(links: LinkTable, slot: number, reason: 'expired' | 'limit'): RulesTest {
  const fallback = links.fallbackUrl.get(slot);
  return fallback === undefined
    ? { outcome: reason, rule: null, location: null }
    : { outcome: 'fallback', rule: null, location: fallback };
}

export async function testLinkRules(
  deps: RedirectDeps,
  geo: () => GeoLookup,
  access: Access,
  id: string,
  input: RulesTestInput,
): Promise<RulesTest> {
  if (input.ip !== undefined && isIP(input.ip) === 0) throw invalid('ip', 'ip must be an IPv4 or IPv6 address');
  const row = await deps.stores.links.find(id);
  if (row === null) throw notFound('link');
  requireSees(access, row);
  // The slug index holds every link (and reads one the start has not loaded yet).
  const slot = await deps.linkIndex.lookup(row.slug, row.domainId);
  if (slot < 0) throw notFound('link');
  const links = deps.linkIndex.table;
  const now = input.at ?? deps.clock.now();
  if (links.status[slot] === PAUSED) return { outcome: 'paused', rule: null, location: null };
  // NaN (no expiry, no limit) compares false. The count is this node's, as the redirect's.
  if (now >= links.expiresAt[slot]!) return ended(links, slot, 'expired');
  if (links.humanClicks[slot]! >= links.clickLimit[slot]!) return ended(links, slot, 'limit');
  const extras = links.extras[slot]!;
  const userAgent = input.userAgent ?? null;
  const rawQuery = rawQueryOf(input.query);
  const withQuery = (location: string) =>
    links.forwardQuery[slot] === 1 && rawQuery !== '' ? withVisitorQuery(location, rawQuery) : location;
  if ((extras & (HAS_PREVIEW | HAS_PASSWORD)) === HAS_PREVIEW && isPreviewCrawler(userAgent))
    return { outcome: 'preview', rule: null, location: withQuery(links.location(slot)) };
  const compiled = links.rules.get(slot);
  const matched =
    compiled === undefined
      ? null
      : matchRule(
          compiled,
          new RuleVisitor(
            {
              userAgent,
              address: input.ip ?? null,
              acceptLanguage: input.language ?? null,
              referrer: input.referrer ?? null,
              rawQuery,
              now,
            },
            geo,
          ),
        );
  return {
    // A protected link asks first; the right password leads where an unprotected link would.
    outcome: (extras & HAS_PASSWORD) !== 0 ? 'password' : 'redirect',
    rule: matched === null ? null : matched.index,
    location: withQuery(matched === null ? links.location(slot) : matched.target.location),
  };
}
