/**
 * The Slink projects a source's links are filed in, by the project names the source gives:
 * found by name, or made before the page's links are decided (a dry run makes none).
 */
import { newId } from '../../../lib/ids';
import { auditEntry } from '../../audit/public';
import type { ImportDeps } from '../deps';
import type { SourceLink } from '../source';
import type { RunPlan } from './plan';

/**
 * The Slink projects of the source links' project names: found by name (case folded as project
 * names are), or made (audited as project.create) unless this is a dry run.
 */
export async function projectsOf(
  deps: ImportDeps,
  plan: RunPlan,
  links: readonly SourceLink[],
  projects: Map<string, string | null>,
) {
  for (const link of links) {
    const name = link.project?.trim();
    if (!name || projects.has(name)) continue;
    const found = await deps.stores.projects.findByName(name);
    if (found || plan.dryRun) {
      projects.set(name, found?.id ?? null);
      continue;
    }
    const now = deps.clock.now();
    const row = { id: newId('prj'), name, createdAt: now, updatedAt: now };
    const audit = auditEntry(plan.access, 'project.create', { type: 'project', id: row.id }, ['name'], now);
    try {
      await deps.stores.projects.insert(row, audit);
      projects.set(name, row.id);
    } catch {
      // Made meanwhile by someone else (the name is unique): that one; else the links stay unfiled.
      projects.set(name, (await deps.stores.projects.findByName(name))?.id ?? null);
    }
  }
}
