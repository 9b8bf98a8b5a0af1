/**
 * The source's domains this Slink lacks, made before a page's links are decided so the links on
 * them keep their domain (another Slink's export lists its domains with their settings). A dry
 * run makes none: it plans them, checked as the real run's writes would check them.
 */
import { Value } from '@sinclair/typebox/value';
import { AppError } from '../../../lib/errors';
import {
  addDomain,
  checkNewDomain,
  checkNewDomainPatch,
  DomainCreateBody,
  type DomainFacts,
  DomainPatchBody,
  hostKeyOf,
  updateDomain,
} from '../../domains/public';
import { refusalOf } from '../decide';
import type { ImportDeps } from '../deps';
import type { SourceDomain } from '../source';
import type { Note, RunPlan } from './plan';

/**
 * The source's domains this Slink lacks, made (audited as domain.create, and domain.update for
 * the settings a new domain takes by PATCH) before the page's links are decided, so the links on
 * them keep their domain. Not when the import names a domain (every link goes there). A dry run
 * makes none: those whose settings it would take are planned instead (RunTarget.planned), so
 * their links count as a real run would make them. One that cannot be made (its host is this
 * Slink's app host...) is noted, and its links are then skipped with their reason; one made
 * whose settings set after it (upstream, .well-known files) are refused is noted as made
 * without them, and its links are made on it.
 */
export async function domainsOf(
  deps: ImportDeps,
  plan: RunPlan,
  seen: Set<string>,
  note: Note,
  /** A dry run's domains it would make (plan.target.planned). */
  planned: Map<string, DomainFacts>,
) {
  if (plan.target.domain !== null || !plan.source.domains) return;
  for (const d of plan.source.domains()) {
    if (seen.has(d.origin)) continue;
    seen.add(d.origin);
    const key = hostKeyOf(d.host);
    if (key !== null && (deps.domains.byHost(key) !== undefined || planned.has(key))) continue;
    const create = {
      origin: d.origin,
      ...(d.rootUrl !== null ? { rootUrl: d.rootUrl } : {}),
      ...(d.notFoundUrl !== null ? { notFoundUrl: d.notFoundUrl } : {}),
      ...(d.expiredUrl !== null ? { expiredUrl: d.expiredUrl } : {}),
    };
    const patch = {
      ...(d.upstream !== null ? { upstream: d.upstream } : {}),
      ...(d.appleAppSiteAssociation !== null ? { appleAppSiteAssociation: d.appleAppSiteAssociation } : {}),
      ...(d.assetLinks !== null ? { assetLinks: d.assetLinks } : {}),
    };
    /** Made (or, in a dry run, planned): a refusal after it is of its settings only. */
    let made = false;
    try {
      if (!Value.Check(DomainCreateBody, create) || !Value.Check(DomainPatchBody, patch))
        throw new Error('its settings are not settings as Slink writes them');
      if (plan.dryRun) {
        // What the real run would refuse, by the very checks its writes make; a domain whose
        // settings after its creation are refused is made all the same, as the real run makes it.
        const checked = await checkNewDomain(deps, plan.access, create);
        planned.set(checked.host, plannedDomain(d, checked.host, -(planned.size + 1)));
        made = true;
        if (Object.keys(patch).length > 0) await checkNewDomainPatch(deps, plan.access, checked, patch);
        continue;
      }
      const added = await addDomain(deps, plan.access, create);
      made = true;
      if (Object.keys(patch).length > 0) await updateDomain(deps, plan.access, added.host, patch);
    } catch (err) {
      const reason = err instanceof AppError ? refusalOf(err) : (err as Error).message;
      note(d.host, `${made ? 'domain made without its settings' : 'domain not made'}: ${reason}`);
    }
  }
}

/** A domain a dry run would make, as the directory would hold it once made (an id no domain has). */
function plannedDomain(d: SourceDomain, host: string, id: number): DomainFacts {
  return {
    id,
    host,
    origin: d.origin,
    isDefault: false,
    rootUrl: d.rootUrl,
    notFoundUrl: d.notFoundUrl,
    expiredUrl: d.expiredUrl,
    upstream: d.upstream,
    appleAppSiteAssociation: d.appleAppSiteAssociation === null ? null : JSON.stringify(d.appleAppSiteAssociation),
    assetLinks: d.assetLinks === null ? null : JSON.stringify(d.assetLinks),
  };
}
