/**
 * Domain verbs (docs/behaviour.md, "Short domains"): list, add, change, delete. Writes are an
 * admin's; after each one this process reads the domains into memory again (other nodes
 * hear of it through the change feed the store announces on). A key limited to domains reads
 * only those (another is not found); a limited caller's link counts count the links it sees.
 */
import { isUniqueViolation } from '../../db/storage';
import { conflict, invalid, notFound } from '../../lib/errors';
import { internalAddressOf } from '../../lib/pinned-lookup';
import { type Access, authorize, linkFilter } from '../access/public';
import { auditEntry, fieldsOf } from '../audit/public';
import type { DomainsDeps } from './deps';
import { hostKeyOf, parseOrigin } from './host';
import { type Domain, type DomainCreate, type DomainPatch, MAX_URL_LENGTH, MAX_WELL_KNOWN_BYTES } from './model';
import type { DomainRow, DomainSettings } from './store';

/**
 * A stored domain's settings as the API answers them, but for its link count (the export's
 * domain line too): lastSeenAt the later of the stored and this process's own, not written yet.
 */
export function domainSettingsOf(directory: Pick<DomainsDeps['domains'], 'seenSince'>, row: DomainRow) {
  const seen = directory.seenSince(row.id);
  return {
    host: row.host,
    origin: row.origin,
    default: row.isDefault,
    rootUrl: row.rootUrl,
    notFoundUrl: row.notFoundUrl,
    expiredUrl: row.expiredUrl,
    upstream: row.upstream,
    appleAppSiteAssociation: row.appleAppSiteAssociation === null ? null : JSON.parse(row.appleAppSiteAssociation),
    assetLinks: row.assetLinks === null ? null : JSON.parse(row.assetLinks),
    lastSeenAt: seen === null ? row.lastSeenAt : Math.max(seen, row.lastSeenAt ?? 0),
    createdAt: row.createdAt,
  };
}

/** A stored domain as the API answers it. */
function toDomain(deps: DomainsDeps, row: DomainRow, linkCount: number): Domain {
  return { ...domainSettingsOf(deps.domains, row), linkCount };
}

/** Reads the domains into memory after this process changed them (the feed skips its own changes). */
async function reload(deps: DomainsDeps): Promise<void> {
  await deps.domains.refresh(() => deps.stores.domains.list());
}

/** The domain of a host, or 404 when there is none or it is outside the caller's domains: the same answer. */
async function findRow(deps: DomainsDeps, access: Access, rawHost: string): Promise<DomainRow> {
  const host = hostKeyOf(rawHost);
  const row = host === null ? undefined : (await deps.stores.domains.list()).find((r) => r.host === host);
  if (row === undefined || !seesDomain(access, row)) throw notFound('domain');
  return row;
}

function seesDomain(access: Access, row: DomainRow): boolean {
  return access.domains === null || access.domains.includes(row.id);
}

/** A redirect target of the domain: the destination rules (links/destination.ts), kept whole like fallbackUrl. */
function urlField(deps: DomainsDeps, raw: string | null, field: string): string | null {
  if (raw === null) return null;
  deps.checkTargetUrl(raw, field);
  const href = new URL(raw.trim()).href;
  if (href.length > MAX_URL_LENGTH)
    throw invalid(field, `${field} is longer than ${MAX_URL_LENGTH} characters once encoded`);
  return href;
}

/**
 * The origin a domain's unknown slugs are asked at: an origin, never this Slink nor one of its
 * domains (a request would come back here and ask again).
 */
function upstreamField(deps: DomainsDeps, raw: string | null, planned?: DomainOrigin): string | null {
  if (raw === null) return null;
  const { origin, host } = parseOrigin(raw, 'upstream');
  deps.checkTargetUrl(origin, 'upstream', planned?.origin);
  if (deps.domains.byHost(host) !== undefined || host === planned?.host)
    throw invalid('upstream', `upstream must be another service: ${host} is one of this Slink's domains`);
  return origin;
}

/** A .well-known file's JSON, as stored: compact text, within the size limit. */
function jsonField(value: unknown, field: string): string | null {
  if (value === null) return null;
  const text = JSON.stringify(value);
  if (Buffer.byteLength(text) > MAX_WELL_KNOWN_BYTES)
    throw invalid(field, `${field} is larger than ${MAX_WELL_KNOWN_BYTES / 1024} KB as JSON`);
  return text;
}

/** A domain's origin and host, as parseOrigin gives them. */
interface DomainOrigin {
  origin: string;
  host: string;
}

/**
 * A domain's settings as stored. `planned`: a domain not in the directory yet, checked as if it
 * were (checkNewDomainPatch).
 */
function settingsOf(deps: DomainsDeps, input: DomainPatch, planned?: DomainOrigin): Partial<DomainSettings> {
  const changes: Partial<DomainSettings> = {};
  if (input.rootUrl !== undefined) changes.rootUrl = urlField(deps, input.rootUrl, 'rootUrl');
  if (input.notFoundUrl !== undefined) changes.notFoundUrl = urlField(deps, input.notFoundUrl, 'notFoundUrl');
  if (input.expiredUrl !== undefined) changes.expiredUrl = urlField(deps, input.expiredUrl, 'expiredUrl');
  if (input.upstream !== undefined) changes.upstream = upstreamField(deps, input.upstream, planned);
  if (input.appleAppSiteAssociation !== undefined)
    changes.appleAppSiteAssociation = jsonField(input.appleAppSiteAssociation, 'appleAppSiteAssociation');
  if (input.assetLinks !== undefined) changes.assetLinks = jsonField(input.assetLinks, 'assetLinks');
  return changes;
}

const hostTaken = (host: string) => conflict('origin', `A domain with the host ${host} already exists`);

export async function listDomains(deps: DomainsDeps, access: Access): Promise<{ domains: Domain[] }> {
  const [rows, counts] = await Promise.all([
    deps.stores.domains.list(),
    deps.stores.domains.linkCounts(linkFilter(access)),
  ]);
  return {
    domains: rows.filter((row) => seesDomain(access, row)).map((row) => toDomain(deps, row, counts.get(row.id) ?? 0)),
  };
}

export async function getDomain(deps: DomainsDeps, access: Access, host: string): Promise<Domain> {
  const row = await findRow(deps, access, host);
  return toDomain(deps, row, await deps.stores.domains.linkCount(row.id, linkFilter(access)));
}

/** What addDomain checks before it writes (throws what it answers): the new domain's host, origin and settings. */
async function newDomainOf(deps: DomainsDeps, access: Access, input: DomainCreate) {
  authorize(access, 'domain.write');
  const { origin, host } = parseOrigin(input.origin, 'origin');
  const { shortHost, appHost } = deps.config;
  if (appHost !== shortHost && new URL(appHost).hostname === host)
    throw invalid('origin', `${host} is the app's host (SLINK_APP_HOST): it cannot also serve short links`);
  const settings = settingsOf(deps, {
    rootUrl: input.rootUrl,
    notFoundUrl: input.notFoundUrl,
    expiredUrl: input.expiredUrl,
  });
  // The domain is not among Slink's own hosts yet: a target on it would send its visitors back to it.
  for (const field of ['rootUrl', 'notFoundUrl', 'expiredUrl'] as const) {
    const target = settings[field];
    if (target != null && new URL(target).hostname === host)
      throw invalid(field, `${field} points at the domain itself (${host}): its visitors would come back to it`);
  }
  if ((await deps.stores.domains.list()).some((r) => r.host === host)) throw hostTaken(host);
  return { host, origin, settings };
}

/**
 * Every check addDomain makes, without writing anything: throws what it would answer (a dry run
 * of an import reports what its real run would refuse). Returns the new domain's origin and host.
 */
export async function checkNewDomain(deps: DomainsDeps, access: Access, create: DomainCreate): Promise<DomainOrigin> {
  const { origin, host } = await newDomainOf(deps, access, create);
  return { origin, host };
}

/**
 * Every check updateDomain makes of `patch` on a domain checkNewDomain passed (`planned`, not
 * made yet: counted among Slink's own as it would be), without writing anything; its
 * upstream's address is looked up as updateDomain does.
 */
export async function checkNewDomainPatch(
  deps: DomainsDeps,
  access: Access,
  planned: DomainOrigin,
  patch: DomainPatch,
): Promise<void> {
  authorize(access, 'domain.write');
  await checkUpstreamAddress(deps, settingsOf(deps, patch, planned).upstream);
}

export async function addDomain(deps: DomainsDeps, access: Access, input: DomainCreate): Promise<Domain> {
  const { host, origin, settings } = await newDomainOf(deps, access, input);
  let row: DomainRow;
  try {
    const now = deps.clock.now();
    // A domain is named by its host, as the API addresses it.
    const audit = auditEntry(access, 'domain.create', { type: 'domain', id: host }, fieldsOf(input), now);
    row = await deps.stores.domains.insert({ host, origin, createdAt: now, ...settings }, audit);
  } catch (err) {
    // Added meanwhile (another request, another node): the unique index held.
    if (isUniqueViolation(err)) throw hostTaken(host);
    throw err;
  }
  await reload(deps);
  return toDomain(deps, row, 0);
}

/**
 * An upstream is asked from this server: one at a loopback, private or otherwise internal
 * address is refused (as webhooks are) unless SLINK_UPSTREAM_ALLOW_PRIVATE=1. Checked again at
 * every question (redirect/read-through/ask.ts), where a name that resolves differently later
 * is caught.
 */
async function checkUpstreamAddress(deps: DomainsDeps, upstream: string | null | undefined): Promise<void> {
  if (upstream == null || deps.config.upstreamAllowPrivate) return;
  const name = new URL(upstream).hostname;
  const inside = await internalAddressOf(name.startsWith('[') ? name.slice(1, -1) : name);
  if (inside !== null)
    throw invalid(
      'upstream',
      `upstream's host ${name} leads to an internal address (${inside}); set SLINK_UPSTREAM_ALLOW_PRIVATE=1 to allow it`,
    );
}

export async function updateDomain(
  deps: DomainsDeps,
  access: Access,
  host: string,
  input: DomainPatch,
): Promise<Domain> {
  authorize(access, 'domain.write');
  const current = await findRow(deps, access, host);
  const changes = settingsOf(deps, input);
  await checkUpstreamAddress(deps, changes.upstream);
  const audit = auditEntry(
    access,
    'domain.update',
    { type: 'domain', id: current.host },
    fieldsOf(changes),
    deps.clock.now(),
  );
  const row = await deps.stores.domains.update(current.id, changes, audit);
  if (row === null) throw notFound('domain');
  if (Object.keys(changes).length > 0) await reload(deps);
  return toDomain(deps, row, await deps.stores.domains.linkCount(row.id, linkFilter(access)));
}

export async function deleteDomain(
  deps: DomainsDeps,
  access: Access,
  host: string,
): Promise<{ host: string; deleted: true }> {
  authorize(access, 'domain.write');
  const current = await findRow(deps, access, host);
  const audit = auditEntry(access, 'domain.delete', { type: 'domain', id: current.host }, [], deps.clock.now());
  switch (await deps.stores.domains.delete(current.id, audit)) {
    case 'missing':
      throw notFound('domain');
    case 'default':
      throw conflict('host', `${current.host} is the default domain (SLINK_SHORT_HOST): it cannot be deleted`);
    case 'has_links':
      throw conflict(
        'host',
        `${current.host} still has links: move or delete them first (GET /links?domain=${current.host})`,
      );
    case 'deleted':
      await reload(deps);
      return { host: current.host, deleted: true };
  }
}

/**
 * Whether a certificate may be issued for `raw` (Caddy's on-demand TLS ask): one of the domains,
 * from memory. 400 naming `domain` when it names no host.
 */
export function tlsAsk(deps: Pick<DomainsDeps, 'domains'>, raw: string | undefined): { host: string } {
  if (raw === undefined || raw === '') throw invalid('domain', 'domain is required: /tls/ask?domain=<host>');
  const host = hostKeyOf(raw);
  if (host === null) throw invalid('domain', 'domain must be a host name');
  const found = deps.domains.byHost(host);
  if (found === undefined) throw notFound('domain');
  return { host: found.host };
}
