/**
 * The workspace's short domains as the link forms, the links list and the statistics use them:
 * a choice of domain is offered only when there is more than one, and starts on the default.
 */
import { listDomains } from '../api/domains';
import type { Domain } from '../api/types';
import { type Resource, useResource } from './hooks';

/** Every domain (oldest first, as the API lists them); empty until loaded. */
export function useDomains(): Resource<{ domains: Domain[] }> & { list: Domain[] } {
  const domains = useResource(listDomains, []);
  return { ...domains, list: domains.data?.domains ?? [] };
}

/** A domain choice for a select: its host, and which one is the default. */
export const domainOptions = (domains: Domain[]) =>
  domains.map((d) => ({ value: d.host, label: d.default ? `${d.host} (default)` : d.host }));

export const defaultHost = (domains: Domain[]): string => domains.find((d) => d.default)?.host ?? '';

/** The short URL a link with `slug` has on the domain `host` (its origin + / + slug). */
export function shortUrlOn(domains: Domain[], host: string, slug: string): string | null {
  const domain = domains.find((d) => d.host === host);
  return domain ? `${domain.origin}/${slug}` : null;
}
