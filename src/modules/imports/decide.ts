/**
 * Slink's own rules applied to one source link (docs/behaviour.md, "Imports"): what the import
 * would make of it, or why it skips it. The same checks as POST /links: an http(s) destination
 * that is not Slink itself, a valid slug that is not reserved, the target domain one of Slink's
 * domains. What a person wrote elsewhere without Slink's limits is cleaned rather than refused:
 * a title's control characters become spaces and it is cut to its limit; tags likewise, and past
 * the 50th dropped. A source link's slug taken on the target domain is skipped with the reason,
 * or given a generated slug with onConflict=rename.
 */
import { Value } from '@sinclair/typebox/value';
import { AppError, invalid } from '../../lib/errors';
import { checkParams } from '../../lib/params';
import { type DomainFacts, hostKeyOf } from '../domains/public';
import {
  checkCustomSlug,
  DEFAULT_REDIRECT_STATUS,
  generateSlug,
  LINK_LIMITS,
  type LinkRow,
  type LinksDeps,
  newLinkRow,
  normalizeFallbackUrl,
  normalizeLinkDestination,
  normalizePreview,
  normalizeRules,
  type Preview,
  PreviewModel,
  REDIRECT_STATUSES,
  type Rule,
  RulesField,
  slinkHostsOf,
} from '../links/public';
import type { ConflictMode } from './model';
import type { SourceLink } from './source';

export interface RunTarget {
  /** The domain named by --domain, or null: each link's own (mapped) domain. */
  domain: DomainFacts | null;
  projectId: string | null;
  onConflict: ConflictMode;
  /**
   * A dry run's: the source's domains the run would make (runner/domains.ts), by host key, with
   * ids no domain has (below 0), so their links are decided as a real run would decide them.
   */
  planned?: ReadonlyMap<string, DomainFacts>;
}

/** A variant to make with the link: its code and params, as POST /links/{id}/variants checks them. */
export interface PlannedVariant {
  code: string;
  params: Record<string, string>;
}

export type Decision =
  | { ok: true; row: LinkRow; tags: string[]; renamed: string | null; variants: PlannedVariant[] }
  | { ok: false; reason: string };

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]+/g;
/** A variant's code, as the variants API takes one. */
const VARIANT_CODE = /^[A-Za-z0-9_-]{1,32}$/;

/** The source's variants Slink would take (a code it refuses, a repeated one or bad params: left out). */
export function variantsOf(link: SourceLink): PlannedVariant[] {
  const out: PlannedVariant[] = [];
  for (const v of link.variants ?? []) {
    if (!VARIANT_CODE.test(v.code) || out.some((o) => o.code === v.code)) continue;
    try {
      out.push({ code: v.code, params: checkParams({ ...v.params }) });
    } catch {}
  }
  return out;
}

/** A password's stored form as Slink writes it (auth's hashPassword): argon2id in PHC form. */
const ARGON2ID = /^\$argon2id\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+={0,2}\$[A-Za-z0-9+/]+={0,2}$/;

/**
 * The rules, preview and password hash a source carries (the `slink` source), checked as
 * POST /links checks rules and previews. A link that asks for a password comes only with its
 * hash: one without a usable hash (an older export) is refused rather than made open.
 */
function protectionOf(
  deps: Pick<LinksDeps, 'config' | 'domains'>,
  link: SourceLink,
): Pick<LinkRow, 'rules' | 'preview' | 'passwordHash'> {
  let rules: Rule[] | null = null;
  if (link.rules !== undefined && link.rules !== null) {
    if (!Value.Check(RulesField, link.rules)) throw invalid('rules', 'rules are not rules as Slink writes them');
    const normalized = normalizeRules(link.rules, slinkHostsOf(deps));
    rules = normalized.length === 0 ? null : normalized;
  }
  let preview: Preview | null = null;
  if (link.preview !== undefined && link.preview !== null) {
    if (!Value.Check(PreviewModel, link.preview))
      throw invalid('preview', 'preview is not {title, description?, image?}');
    preview = normalizePreview(link.preview);
  }
  let passwordHash: string | null = null;
  if (link.passwordProtected === true || (link.passwordHash ?? null) !== null) {
    const hash = link.passwordHash ?? null;
    if (hash === null || hash.length > 512 || !ARGON2ID.test(hash))
      throw invalid('password', 'it asks for a password whose hash the source did not give: set it here by hand');
    passwordHash = hash;
  }
  return { rules, preview, passwordHash };
}

function cleanText(text: string | null, limit: number): string | null {
  if (text === null) return null;
  const cleaned = text.replace(CONTROLS, ' ').trim().slice(0, limit).trim();
  return cleaned === '' ? null : cleaned;
}

function cleanTags(tags: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of tags) {
    const tag = cleanText(raw, LINK_LIMITS.tagLength);
    if (tag !== null && !out.includes(tag)) out.push(tag);
    if (out.length === LINK_LIMITS.tags) break;
  }
  return out;
}

/** The Slink domain a source link goes to: --domain, else its own host's domain, else the default. */
function targetDomain(deps: Pick<LinksDeps, 'domains'>, target: RunTarget, link: SourceLink): DomainFacts | string {
  if (target.domain !== null) return target.domain;
  if (link.domain === null) return deps.domains.default;
  const key = hostKeyOf(link.domain);
  const found = key === null ? undefined : (deps.domains.byHost(key) ?? target.planned?.get(key));
  return (
    found ?? `its domain ${link.domain} is not one of this Slink's domains: add it, or name the domain to import into`
  );
}

/**
 * The addresses (`domainId`, slug) a page's links ask for, so their existence is checked in one
 * query before the page is decided (slugsOf); a link whose slug Slink would refuse or whose
 * domain is not Slink's asks for none (its decision needs no check).
 */
export function slugsOf(
  deps: Pick<LinksDeps, 'domains'>,
  target: RunTarget,
  links: readonly SourceLink[],
): { domainId: number; slug: string }[] {
  const out: { domainId: number; slug: string }[] = [];
  for (const link of links) {
    if (link.cannotMove || link.slug === null) continue;
    try {
      const domain = targetDomain(deps, target, link);
      if (typeof domain !== 'string') out.push({ domainId: domain.id, slug: link.slug });
    } catch {
      // The domains not read yet (a process just started): its decision asks for its slug alone.
    }
  }
  return out;
}

/** Slugs whose existence was read before the decisions (`<domainId>/<slug>`): those asked, those taken. */
export interface KnownSlugs {
  asked: ReadonlySet<string>;
  taken: ReadonlySet<string>;
}

/**
 * A refusal as a report line: its message after the field it names, unless the message already
 * begins with that field ("fallbackUrl points at this Slink itself"), which would say it twice.
 */
export function refusalOf(err: AppError): string {
  const field = err.field;
  if (!field || err.message === field || err.message.startsWith(`${field} `)) return err.message;
  return `${field}: ${err.message}`;
}

const said = (err: unknown): string => {
  if (err instanceof AppError) return refusalOf(err);
  throw err;
};

/**
 * Decides a source link. `claimed` holds the slugs this run is about to take on each domain
 * (`<domainId>/<slug>`), so a dry run, which writes nothing, decides as a real run would.
 */
export async function decideLink(
  deps: LinksDeps,
  target: RunTarget,
  link: SourceLink,
  claimed: Set<string>,
  now: number,
  /** The project of the source link's project name (found or made by the runner), or null. */
  projectId: string | null = null,
  /** The page's slugs read at once (slugsOf): not asked again; any other slug is asked alone. */
  known: KnownSlugs | null = null,
): Promise<Decision> {
  if (link.cannotMove) return { ok: false, reason: link.cannotMove };
  const domain = targetDomain(deps, target, link);
  if (typeof domain === 'string') return { ok: false, reason: domain };
  let destination: string;
  let params: Record<string, string>;
  let fallbackUrl: string | null;
  try {
    const normalized = normalizeLinkDestination(link.url, slinkHostsOf(deps));
    destination = normalized.destination;
    // The destination's utm_ keys win over the same keys in the source's params, as in POST /links.
    params = checkParams({ ...link.params, ...normalized.utm });
    fallbackUrl = normalizeFallbackUrl(link.fallbackUrl ?? null, slinkHostsOf(deps));
  } catch (err) {
    return { ok: false, reason: said(err) };
  }
  let slug: string;
  let renamed: string | null = null;
  const taken = async (s: string) => {
    const key = `${domain.id}/${s}`;
    if (claimed.has(key)) return true;
    if (known?.asked.has(key)) return known.taken.has(key);
    return deps.stores.links.slugTaken(domain.id, s);
  };
  if (link.slug === null) {
    do slug = generateSlug();
    while (await taken(slug));
  } else {
    try {
      slug = checkCustomSlug(link.slug);
    } catch (err) {
      return { ok: false, reason: said(err) };
    }
    if (await taken(slug)) {
      if (target.onConflict === 'skip') return { ok: false, reason: `slug "${slug}" is taken on ${domain.host}` };
      renamed = slug;
      do slug = generateSlug();
      while (await taken(slug));
    }
  }
  claimed.add(`${domain.id}/${slug}`);
  const row = newLinkRow(deps, {
    slug,
    domainId: domain.id,
    destination,
    title: cleanText(link.title, LINK_LIMITS.titleLength),
    params,
    projectId: target.projectId ?? projectId,
    expiresAt: link.expiresAt,
    clickLimit: link.clickLimit !== null && link.clickLimit >= 1 ? Math.floor(link.clickLimit) : null,
    fallbackUrl,
    redirectStatus: REDIRECT_STATUSES.find((s) => s === link.redirectStatus) ?? DEFAULT_REDIRECT_STATUS,
    forwardQuery: link.forwardQuery === true,
  });
  let extras: Pick<LinkRow, 'rules' | 'preview' | 'passwordHash'>;
  try {
    extras = protectionOf(deps, link);
  } catch (err) {
    return { ok: false, reason: said(err) };
  }
  Object.assign(row, extras);
  if (link.archived) row.status = 'archived';
  else if (link.paused) row.status = 'paused';
  // The link keeps the day it was made at the source (lists sort by it).
  if (link.createdAt !== null && Number.isFinite(link.createdAt) && link.createdAt <= now)
    row.createdAt = link.createdAt;
  return { ok: true, row, tags: cleanTags(link.tags), renamed, variants: variantsOf(link) };
}
