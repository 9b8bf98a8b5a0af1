/**
 * How a run takes on from where another stopped, and saves where it stands so the next can: its
 * starting counts and cursor (a run taken over from a dead node goes on with its counts and
 * report; one resuming a source, from the cursor its last unfinished run saved), the position it
 * stores (a file run's cursor marked with the bytes read, so only the same file resumes), and the
 * links a stopped run made but never reported, which the page read again counts `created`.
 */
import type { ImportDeps } from '../deps';
import { markedCursor } from '../file-mark';
import { type ImportLinkRow, noProgress, type RunProgress } from '../store';
import type { RunPlan } from './plan';

/** The run's progress before its first page: its own copy of a taken-over run's, else nothing counted. */
export function startProgress(plan: RunPlan): RunProgress {
  return plan.progress
    ? { ...plan.progress, errors: [...plan.progress.errors], cursor: plan.cursor }
    : noProgress(plan.cursor);
}

/** The progress as stored: a file run's position with the mark of the bytes read by then. */
export function storedProgress(plan: RunPlan, p: RunProgress): RunProgress {
  return plan.fileMark === undefined ? p : { ...p, cursor: markedCursor(p.cursor, plan.fileMark()) };
}

/**
 * The source ids of `mappings` whose link an import made but never reported: made on a page
 * its run had not saved when it stopped (its node died, another took the run over; or its
 * process died, failed, and this run resumes the source), so that page, read again now, counts
 * them created, not imported before. A run that ended done saved every page it made links on;
 * of the others (this one included: a source listing a link twice), their report says.
 */
export async function madeUnreported(
  deps: ImportDeps,
  plan: RunPlan,
  mappings: readonly ImportLinkRow[],
  /** Whether the runs the mappings name ended done (their report whole), by id: filled as they are read. */
  doneRuns: Map<string, boolean>,
): Promise<Set<string>> {
  const store = deps.stores.imports;
  const byRun = new Map<string, string[]>();
  for (const m of mappings) {
    if (m.runId !== plan.id) {
      let done = doneRuns.get(m.runId);
      if (done === undefined) {
        const run = await store.find(m.runId);
        done = run === null || run.status === 'done';
        doneRuns.set(m.runId, done);
      }
      if (done) continue;
    }
    byRun.set(m.runId, [...(byRun.get(m.runId) ?? []), m.sourceId]);
  }
  const made = new Set<string>();
  for (const [runId, ids] of byRun) {
    const reported = await store.reported(runId, ids);
    for (const id of ids) if (!reported.has(id)) made.add(id);
  }
  return made;
}
