/**
 * A link's domain as the API names it: by its host, matched as the domains are keyed
 * (domains/host.ts hostKeyOf): lowercase, punycode, no port, a trailing dot ignored; anything
 * that is not a bare host (a path, credentials) names no domain.
 */

import { isForeignKeyViolation } from '../../db/storage';
import { type AppError, invalid } from '../../lib/errors';
import type { Access } from '../access/public';
import { type DomainDirectory, type DomainFacts, hostKeyOf } from '../domains/public';

/** The domain a host names, or 400 invalid_request naming `field`. */
export function domainOfHost(domains: DomainDirectory, given: string, field = 'domain'): DomainFacts {
  const key = hostKeyOf(given);
  const domain = key === null ? undefined : domains.byHost(key);
  if (domain === undefined) throw invalid(field, `No domain ${JSON.stringify(given)} in this workspace`);
  return domain;
}

/**
 * The domain a filter names (a list's, a count's, statistics'), among those the caller sees: a
 * domain outside a key's domains is answered exactly as a host that names none.
 */
export function seenDomainOfHost(
  domains: DomainDirectory,
  access: Pick<Access, 'domains'>,
  given: string,
  field = 'domain',
): DomainFacts {
  const domain = domainOfHost(domains, given, field);
  if (access.domains !== null && !access.domains.includes(domain.id)) {
    throw invalid(field, `No domain ${JSON.stringify(given)} in this workspace`);
  }
  return domain;
}

/** The domain a body names, or the default one when it names none. */
export function domainOrDefault(domains: DomainDirectory, given: string | undefined, field = 'domain'): DomainFacts {
  return given === undefined ? domains.default : domainOfHost(domains, given, field);
}

/** The host of a link's domain id (the default domain's for an id not known here, like originOf). */
export function hostOfDomain(domains: DomainDirectory, id: number): string {
  return (domains.byId(id) ?? domains.default).host;
}

/**
 * A write refused because the link's domain was deleted between the check and the write (the
 * foreign key of links.domain_id on PostgreSQL, its triggers on SQLite, both naming the column),
 * said as the API says it; null for any other failure.
 */
export function domainGoneError(err: unknown): AppError | null {
  if (!isForeignKeyViolation(err) || !(err as Error).message.includes('domain_id')) return null;
  return invalid('domain', 'That domain was deleted meanwhile');
}
