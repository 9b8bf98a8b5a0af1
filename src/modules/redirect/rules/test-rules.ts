/**
 * POST /links/{id}/rules/test: which of a link's rules a described visit would match and where
 * it would be sent, by the redirect's own evaluation (match.ts) over the link's rules as the
 * slug index holds them. Records nothing.
 */
import { isIP } from 'node:net';
import type { Deps } from '../../../deps';
import { invalid, notFound } from '../../../lib/errors';
import type { GeoLookup } from '../../clicks/public';
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

export async function testLinkRules(
  deps: Deps,
  geo: () => GeoLookup,
  id: string,
  input: RulesTestInput,
): Promise<RulesTest> {
  if (input.ip !== undefined && isIP(input.ip) === 0) throw invalid('ip', 'ip must be an IPv4 or IPv6 address');
  const row = await deps.stores.links.find(id);
  if (row === null) throw notFound('link');
  // The slug index holds every link (and reads one the start has not loaded yet).
  const slot = await deps.linkIndex.lookup(row.slug);
  if (slot < 0) throw notFound('link');
  const links = deps.linkIndex.table;
  const rawQuery = rawQueryOf(input.query);
  const compiled = links.rules.get(slot);
  const matched =
    compiled === undefined
      ? null
      : matchRule(
          compiled,
          new RuleVisitor(
            {
              userAgent: input.userAgent ?? null,
              address: input.ip ?? null,
              acceptLanguage: input.language ?? null,
              referrer: input.referrer ?? null,
              rawQuery,
              now: input.at ?? deps.clock.now(),
            },
            geo,
          ),
        );
  const location = matched === null ? links.location(slot) : matched.target.location;
  return {
    rule: matched === null ? null : matched.index,
    location: links.forwardQuery[slot] === 1 && rawQuery !== '' ? withVisitorQuery(location, rawQuery) : location,
  };
}
