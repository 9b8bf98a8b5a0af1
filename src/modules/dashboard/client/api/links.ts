/** The links, variants and tags calls of /api/v1 the dashboard makes. */
import { api, withQuery } from './client';
import type {
  Link,
  LinkAvailability,
  LinkSort,
  LinkStatus,
  Page,
  Preview,
  RedirectStatus,
  Rule,
  RulesTest,
  Variant,
} from './types';

const V1 = '/api/v1';
const enc = encodeURIComponent;

export interface LinkFilters {
  q?: string;
  tag?: string;
  project?: string;
  status?: LinkStatus;
  availability?: LinkAvailability;
  /** A domain's host: only its links. */
  domain?: string;
  sort?: LinkSort;
}

export interface LinkFields {
  destination?: string;
  /** The host of the domain it lives on (moving it there keeps its clicks). */
  domain?: string;
  slug?: string;
  title?: string | null;
  tags?: string[];
  params?: Record<string, string>;
  projectId?: string | null;
  expiresAt?: number | null;
  clickLimit?: number | null;
  fallbackUrl?: string | null;
  redirectStatus?: RedirectStatus;
  forwardQuery?: boolean;
  /** Write-only: a new password, or null to remove it. */
  password?: string | null;
  preview?: Preview | null;
  rules?: Rule[];
  status?: LinkStatus;
}

/** A visit to try the saved rules on (POST /links/{id}/rules/test); every part optional. */
export interface RuleVisit {
  userAgent?: string;
  ip?: string;
  language?: string;
  referrer?: string;
  query?: Record<string, string>;
  at?: number;
}

/**
 * What a visit gets (`redirect`, or the link's pause, expiry, click limit, fallback, password
 * or preview first), the rule it matches (its index from 0, or null) and where it goes (null:
 * a page is answered instead).
 */
export type RuleTestResult = RulesTest;

export const PAGE_SIZE = 50;

export const listLinks = (filters: LinkFilters, cursor: string | null) =>
  api.get<Page<Link>>(withQuery(`${V1}/links`, { ...filters, limit: PAGE_SIZE, cursor }));
/** How many links the list holds with these filters, over all its pages (the sort does not matter). */
export const countLinks = ({ q, tag, project, status, availability, domain }: LinkFilters) =>
  api.get<{ count: number }>(withQuery(`${V1}/links/count`, { q, tag, project, status, availability, domain }));
export const getLink = (id: string) => api.get<Link>(`${V1}/links/${enc(id)}`);
export const createLink = (fields: LinkFields & { destination: string }) => api.post<Link>(`${V1}/links`, fields);
export const updateLink = (id: string, fields: LinkFields) => api.patch<Link>(`${V1}/links/${enc(id)}`, fields);
/** Only for a link without human clicks (else 409 delete_requires_dashboard). */
export const deleteUnclickedLink = (id: string) => api.del<unknown>(`${V1}/links/${enc(id)}`);
/** A link with human clicks, its clicks and statistics: the person confirms with the slug. */
export const deleteClickedLink = (id: string, slug: string) => api.del(`/api/app/links/${enc(id)}`, { slug });

/** Nothing is recorded: the server answers what the redirect would do with the saved rules. */
export const testRules = (id: string, visit: RuleVisit) =>
  api.post<RuleTestResult>(`${V1}/links/${enc(id)}/rules/test`, visit);

export const listTags = () => api.get<{ tags: { tag: string; count: number }[] }>(`${V1}/links/tags`);

export const createVariant = (linkId: string, code: string, params: Record<string, string>) =>
  api.post<Variant>(`${V1}/links/${enc(linkId)}/variants`, { code, params });
export const updateVariant = (linkId: string, id: string, fields: { code?: string; params?: Record<string, string> }) =>
  api.patch<Variant>(`${V1}/links/${enc(linkId)}/variants/${enc(id)}`, fields);
export const deleteVariant = (linkId: string, id: string) =>
  api.del<unknown>(`${V1}/links/${enc(linkId)}/variants/${enc(id)}`);

/** The QR code's address (an <img> source and a download): same origin, the session cookie goes along. */
export const qrCodeUrl = (linkId: string, size: number, variant?: string) =>
  withQuery(`${V1}/links/${enc(linkId)}/qr.svg`, { size, variant });
