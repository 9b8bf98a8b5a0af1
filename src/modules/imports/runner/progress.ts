/**
 * What a run says it did: its counts (links seen, created, skipped, failed; clicks imported),
 * its errors (the contract's first 100) and its report's lines, saved after each page with the
 * cursor past it, and once more when the run ends. A page is counted in only as it is saved,
 * and counted out again when its save fails, so no link is ever counted twice.
 */
import type { ImportDeps } from '../deps';
import type { RunProgress } from '../store';
import type { ImportStatus } from '../table';
import { HandingOver, type Note, type RunPlan } from './plan';
import { startProgress, storedProgress } from './resume';
import type { PageWork } from './work';

/** The errors a run keeps (the contract's first 100). */
const MAX_ERRORS = 100;

export interface RunLedger {
  /** The counts, errors and cursor so far (those of the run taken over, if any, included). */
  readonly progress: RunProgress;
  /** The report's line numbers, after those of a run taken over. */
  readonly seq: { last: number };
  note: Note;
  /**
   * Counts a page in and saves it with its report lines; `advance`: its history is all stored,
   * so the cursor moves past it. A stop mid-page leaves links of it without their history: the
   * page is read again on the resume (its links are then `existing`, their history carried on
   * from their positions). Resolves whether the run is to stop (a cancel asked for, or aborted).
   */
  save(work: PageWork, advance: boolean): Promise<boolean>;
  /** Saves the run's end: its status, counts and report as they stand. */
  finish(status: ImportStatus): Promise<void>;
}

export function runLedger(deps: ImportDeps, plan: RunPlan): RunLedger {
  const progress = startProgress(plan);
  const store = deps.stores.imports;
  const note: Note = (source, reason) => {
    if (progress.errors.length < MAX_ERRORS) progress.errors.push({ source, reason });
  };
  const save = async (work: PageWork, advance: boolean): Promise<boolean> => {
    // Handed over: nothing of this page is saved; the node taking it on reads it again.
    if (plan.signal.reason instanceof HandingOver) return true;
    const { linksSeen, linksCreated, linksSkipped, linksExisting, linksFailed, cursor } = progress;
    const noted = progress.errors.length;
    progress.linksSeen += work.tally.seen;
    progress.linksCreated += work.tally.created;
    progress.linksSkipped += work.tally.skipped;
    progress.linksExisting += work.tally.existing;
    progress.linksFailed += work.tally.failed;
    for (const n of work.tally.notes) note(n.source, n.reason);
    if (advance && !plan.signal.aborted) progress.cursor = work.page.next;
    let cancel: boolean;
    try {
      cancel = await store.savePage(
        plan.id,
        storedProgress(plan, progress),
        work.planned.map((p) => p.item),
      );
    } catch (err) {
      // Not saved: the run's counts, as its report, leave the page out (the run reading it
      // again counts the links it made created: pageLinks), so none is counted twice.
      Object.assign(progress, { linksSeen, linksCreated, linksSkipped, linksExisting, linksFailed, cursor });
      progress.errors.length = noted;
      throw err;
    }
    plan.onPage?.(progress);
    await plan.afterPage?.().catch((err) => deps.log.error(`import ${plan.id}: after its page`, err));
    return cancel || plan.signal.aborted;
  };
  const finish = (status: ImportStatus) =>
    store.finish(plan.id, status, storedProgress(plan, progress), deps.clock.now());
  return { progress, seq: { last: progress.linksSeen }, note, save, finish };
}
