/**
 * The history of a page's links, after the page's links are made and before the page is saved
 * (so the cursor saved never passes a page whose history is not all stored): several links at
 * once, so the source's requests and the writer's batches overlap, with memory bounded by the
 * links in flight, never by the page's visits.
 */
import type { ImportDeps } from '../deps';
import type { RunProgress } from '../store';
import { importHistory } from './link-history';
import type { Note, RunPlan } from './plan';
import { settled } from './settled';
import type { Planned } from './work';

/**
 * Links of a page whose history is read and written at once: enough for the writer to take
 * many links' visits together, few enough that their batches in memory stay small.
 */
const HISTORY_IN_FLIGHT = 64;

/**
 * The history of a page's links, several links at once (the source's requests side by side,
 * the writes side by side so the writer takes them together): up to the source's
 * historyInFlight (else HISTORY_IN_FLIGHT) links in flight, each link's batches in order, its
 * position saved after each. Resolves once every started link is done, so the page's position
 * is saved after all its history; a stop starts no further link (the page is then read again
 * on the resume); a link that fails is noted and the others go on. Memory: the links in flight's batches, never the page's visits.
 */
export async function importPageHistory(
  deps: ImportDeps,
  plan: RunPlan,
  planned: readonly Planned[],
  progress: RunProgress,
  note: Note,
) {
  const writer = deps.history!;
  const store = deps.stores.imports;
  const queue = planned.filter((p) => p.linkId !== null && p.item.outcome !== 'failed');
  let next = 0;
  const work = async () => {
    while (next < queue.length) {
      const p = queue[next++]!;
      const linkId = p.linkId!;
      if (plan.history === 'none' || p.link.history === 'none') {
        // A link made now says it was imported, with no history.
        if (p.item.outcome === 'created') await writer.none?.(linkId, plan.source.name);
        continue;
      }
      if (plan.signal.aborted) return;
      try {
        const mapping = p.mapping ?? (await store.mappings(plan.identity, [p.link.sourceId])).get(p.link.sourceId);
        if (!mapping) continue;
        // Counted once stored (not `+= await`: that would read the counter before the wait).
        const clicks = await importHistory(deps, plan, p.link, { ...mapping, linkId });
        progress.clicksImported += clicks;
      } catch (err) {
        if (plan.signal.aborted) return;
        note(p.link.sourceId, `history: ${(err as Error).message ?? err}`);
      }
    }
  };
  const inFlight = Math.max(1, Math.min(queue.length, plan.source.historyInFlight ?? HISTORY_IN_FLIGHT));
  await settled(Array.from({ length: inFlight }, work));
}
