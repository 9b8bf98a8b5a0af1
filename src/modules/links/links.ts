/** A LinkRow becomes a Link here, and only here: tags, variants and project names read once per page. */
import { shortUrlOf } from '../../lib/short-url';
import { toVariant } from '../variants/public';
import { availabilityOf } from './availability';
import type { LinkReadDeps } from './deps';
import { hostOfDomain } from './domain';
import { importedOf } from './imported';
import type { Link, RedirectStatus } from './model';
import type { LinkRow } from './store';

/**
 * Full Link objects for rows, order kept; `availability` is judged at the injected clock's now,
 * when the request is answered.
 */
export async function toLinks(deps: LinkReadDeps, rows: LinkRow[]): Promise<Link[]> {
  const ids = rows.map((r) => r.id);
  const { stores } = deps;
  const [tagsByLink, variantsByLink, projects] = await Promise.all([
    stores.links.tagsOf(ids),
    stores.variants.ofLinks(ids),
    stores.projects.names(rows.map((r) => r.projectId)),
  ]);
  const now = deps.clock.now();
  return rows.map((row) => {
    const origin = deps.domains.originOf(row.domainId);
    return {
      id: row.id,
      slug: row.slug,
      shortUrl: shortUrlOf(origin, row.slug),
      domain: hostOfDomain(deps.domains, row.domainId),
      destination: row.destination,
      title: row.title,
      tags: tagsByLink.get(row.id) ?? [],
      status: row.status,
      availability: availabilityOf(row, now),
      params: row.params,
      variants: (variantsByLink.get(row.id) ?? []).map((v) => toVariant(v, origin, row.slug)),
      projectId: row.projectId,
      projectName: row.projectId === null ? null : (projects.get(row.projectId) ?? null),
      clickCount: row.clickCount,
      uniqueCount: row.uniqueCount,
      botCount: row.botCount,
      expiresAt: row.expiresAt,
      clickLimit: row.clickLimit,
      fallbackUrl: row.fallbackUrl,
      redirectStatus: row.redirectStatus as RedirectStatus,
      forwardQuery: row.forwardQuery,
      passwordProtected: row.passwordHash !== null,
      rules: row.rules ?? [],
      preview: row.preview,
      lastClickedAt: row.lastClickedAt,
      fallbackCount: row.fallbackCount,
      imported: importedOf(row),
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  });
}
