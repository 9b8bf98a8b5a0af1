/**
 * A link's domain as the API names it: by its host. A host given in a body or a query is
 * matched as the domains are keyed (domains/directory.ts): lowercase, punycode, no port, a
 * trailing dot ignored; anything that is not a bare host (a path, credentials) names no domain.
 */
import { invalid } from '../../lib/errors';
import type { DomainDirectory, DomainFacts } from '../domains/public';

/** `HOST`, `host:8080`, `bücher.example` and `host.` all name `host` (or `xn--bcher-kva.example`). */
export function hostKeyOf(given: string): string | null {
  const text = given.trim();
  if (text === '' || /[/\\?#@\s]/.test(text)) return null;
  try {
    const host = new URL(`http://${text}/`).hostname;
    return host.endsWith('.') ? host.slice(0, -1) : host;
  } catch {
    return null;
  }
}

/** The domain a host names, or 400 invalid_request naming `field`. */
export function domainOfHost(domains: DomainDirectory, given: string, field = 'domain'): DomainFacts {
  const key = hostKeyOf(given);
  const domain = key === null ? undefined : domains.byHost(key);
  if (domain === undefined) throw invalid(field, `No domain ${JSON.stringify(given)} in this workspace`);
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
