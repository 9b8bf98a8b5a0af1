/**
 * What a page does with each of its source links: the page's existence checks at once (the
 * links' mappings and the slugs they ask for), then each link found by its mapping (`existing`,
 * or `created` when a stopped run made it unreported), skipped with its reason, failed, or
 * decided by Slink's rules (decide.ts) and made with the page's others in one write.
 */
import { shortUrlOf } from '../../../lib/short-url';
import { decideLink, slugsOf, variantsOf } from '../decide';
import type { ImportDeps } from '../deps';
import type { SourcePage } from '../source';
import type { ImportItemRow } from '../store';
import type { RunPlan } from './plan';
import { projectsOf } from './projects';
import { madeUnreported } from './resume';
import type { PageWork, Planned, Tally } from './work';
import { makeVariants, writeLinks } from './write-links';

/** Decides a page's links and makes the new ones (their history is importPageHistory's). */
export async function pageLinks(
  deps: ImportDeps,
  plan: RunPlan,
  page: SourcePage,
  // What the run keeps from page to page:
  /** The report's last line number (progress.ts). */
  seq: { last: number },
  /** The slugs the run's links take, by domain (decide.ts). */
  claimed: Set<string>,
  /** Project names of the source -> the Slink project's id (projects.ts). */
  projects: Map<string, string | null>,
  /** Whether the runs the page's mappings name ended done (resume.ts). */
  doneRuns: Map<string, boolean>,
): Promise<PageWork> {
  const { links } = page;
  const tally: Tally = { seen: 0, created: 0, skipped: 0, existing: 0, failed: 0, notes: [] };
  const store = deps.stores.imports;
  if (plan.target.projectId === null) await projectsOf(deps, plan, links, projects);
  // The page's existence checks at once: its mappings and the slugs its links ask for (one
  // round trip each, side by side), then the links its mappings name (a re-run's, one more).
  const asked = slugsOf(deps, plan.target, links);
  const [mappings, taken] = await Promise.all([
    store.mappings(
      plan.identity,
      links.map((l) => l.sourceId),
    ),
    deps.stores.links.takenSlugs(asked),
  ]);
  const known = { asked: new Set(asked.map((a) => `${a.domainId}/${a.slug}`)), taken };
  const mapped = [...mappings.values()].map((m) => m.linkId);
  const found = new Map(
    mapped.length === 0 ? [] : (await deps.stores.links.findMany(mapped)).map((row) => [row.id, row] as const),
  );
  const unreported = await madeUnreported(deps, plan, [...mappings.values()], doneRuns);
  const planned: Planned[] = [];
  const now = deps.clock.now();
  for (const link of links) {
    tally.seen++;
    const item: ImportItemRow = {
      runId: plan.id,
      seq: ++seq.last,
      sourceId: link.sourceId,
      outcome: 'skipped',
      linkId: null,
      shortUrl: null,
      reason: null,
    };
    const entry: Planned = {
      link,
      item,
      row: null,
      tags: [],
      variants: [],
      linkId: null,
      mapping: mappings.get(link.sourceId) ?? null,
    };
    planned.push(entry);
    try {
      // A record the source wrote wrong fails that link alone (made or not), with the field it names.
      if (link.invalid) throw new Error(link.invalid);
      // Made and reported by this run on an earlier page, and a file's row giving its slug again:
      // decided anew, so the repeat is skipped as one on the same page is, not reported imported
      // before. A product's link given again (its pages shifted) is that link: existing.
      if (plan.source.idsAreRows && entry.mapping?.runId === plan.id && !unreported.has(link.sourceId))
        entry.mapping = null;
      const mapping = entry.mapping;
      const existing = mapping ? (found.get(mapping.linkId) ?? null) : null;
      if (mapping && existing) {
        const made = unreported.has(link.sourceId);
        item.outcome = made ? 'created' : 'existing';
        item.linkId = existing.id;
        item.shortUrl = shortUrlOf(deps.domains.originOf(existing.domainId), existing.slug);
        item.reason = made ? (plan.dryRun ? 'dry run: would be created' : null) : 'imported before';
        entry.linkId = existing.id;
        // Reported by this run from now on: named by its mapping, which a later run reads.
        if (made && mapping.runId !== plan.id && !plan.dryRun) {
          entry.mapping = { ...mapping, runId: plan.id };
          await store.putMapping(entry.mapping);
        }
        // A run stopped between the link's write and its variants': they are made now, before
        // the mapping says the link is whole (and before its clicks, which name them).
        if (mapping.state === 'creating' && !plan.dryRun) {
          await makeVariants(deps, plan, existing.id, variantsOf(link), now);
          entry.mapping = { ...entry.mapping!, state: 'created' };
          await store.putMapping(entry.mapping);
        }
        continue;
      }
      if (mapping && mapping.state === 'created') {
        item.reason = `imported before as ${mapping.linkId}, deleted since`;
        continue;
      }
      const projectId = link.project ? (projects.get(link.project.trim()) ?? null) : null;
      const decision = await decideLink(deps, plan.target, link, claimed, now, projectId, known);
      if (!decision.ok) {
        item.reason = decision.reason;
        continue;
      }
      // A link whose writing a stopped run began keeps the id that run chose.
      if (mapping) decision.row.id = mapping.linkId;
      entry.row = decision.row;
      entry.tags = decision.tags;
      entry.variants = decision.variants;
      if (decision.renamed !== null) item.reason = `slug "${decision.renamed}" was taken: renamed`;
    } catch (err) {
      item.outcome = 'failed';
      item.reason = (err as Error).message ?? String(err);
    }
  }
  const making = planned.filter((p) => p.row !== null);
  if (!plan.dryRun && making.length > 0) await writeLinks(deps, plan, making, now);
  for (const p of planned) {
    if (p.row !== null && p.item.outcome !== 'failed') {
      p.item.outcome = 'created';
      p.item.linkId = p.row.id;
      p.item.shortUrl = shortUrlOf(originOf(deps, plan, p.row.domainId), p.row.slug);
      if (plan.dryRun) p.item.reason = p.item.reason ?? 'dry run: would be created';
      p.linkId = p.row.id;
    }
    if (p.item.outcome === 'created') tally.created++;
    else if (p.item.outcome === 'failed') tally.failed++;
    else tally.skipped++;
    if (p.item.outcome === 'existing') tally.existing++;
    if (p.item.outcome === 'skipped' || p.item.outcome === 'failed')
      tally.notes.push({ source: p.link.sourceId, reason: p.item.reason ?? '' });
  }
  return { page, planned, tally };
}

/** What a domain's short URLs start with, a domain a dry run would make included. */
function originOf(deps: ImportDeps, plan: RunPlan, domainId: number): string {
  if (domainId < 0) for (const d of plan.target.planned?.values() ?? []) if (d.id === domainId) return d.origin;
  return deps.domains.originOf(domainId);
}
