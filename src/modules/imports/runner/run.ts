/**
 * One import run, start to end, in the background of the process that started it: pages of
 * links from the source, each decided by Slink's rules and the page's new links written in one
 * transaction (page-links.ts), then each link's history through the HistoryWriter from the
 * position its mapping saved (page-history.ts). After each page the run's counters, report lines
 * and cursor are saved (progress.ts): a run stopped or crashed mid-way is resumed by the next run
 * of the same source from there (resume.ts), and the mapping (source link -> link, written in the
 * link's transaction) makes the repeated part create nothing twice. One bad link never stops a
 * run; a source that cannot be read does.
 *
 * This file is the loop: which page is read, written and saved when, and how the run ends.
 */
import type { DomainFacts } from '../../domains/public';
import type { ImportDeps } from '../deps';
import { SourceError, type SourcePage } from '../source';
import type { ImportStatus } from '../table';
import { domainsOf } from './domains';
import { importPageHistory } from './page-history';
import { pageLinks } from './page-links';
import { Cancelled, HandingOver, type RunEnd, type RunPlan } from './plan';
import { runLedger } from './progress';
import { readPage } from './read-page';

export async function runImport(deps: ImportDeps, given: RunPlan): Promise<RunEnd> {
  // A dry run makes no domain: it decides the links on those it would make as if it had.
  const planned = new Map<string, DomainFacts>();
  const plan: RunPlan = given.dryRun ? { ...given, target: { ...given.target, planned } } : given;
  const { progress, seq, note, save, finish } = runLedger(deps, plan);
  const claimed = new Set<string>();
  /** The source's domains looked at (made, found or refused), by origin. */
  const domainsSeen = new Set<string>();
  /** Project names of the source -> the Slink project's id (null: a dry run would make it). */
  const projects = new Map<string, string | null>();
  /** Whether the runs its links' mappings name ended done (their report whole), by id. */
  const doneRuns = new Map<string, boolean>();
  let status: ImportStatus = 'done';
  /** The next page, read from the source while this one is written: one page ahead, no more. */
  let ahead: Promise<SourcePage> | null = null;
  /**
   * The last page's history, then its save (whether to stop): while it runs, the next page is
   * read, decided and its links made (they have no history yet, so the cursor saved is right).
   */
  let saving: Promise<boolean> | null = null;
  try {
    for (;;) {
      if (plan.signal.aborted) throw new Cancelled();
      // A page may be all in-process work (a file read in a dry run: parsed, decided, no write
      // waited on), which never lets the event loop reach its sockets: a turn of the loop
      // before each page keeps redirects and the API answered while a long file is read.
      await loopTurn();
      const page = await (ahead ?? readPage(deps, plan, progress.cursor));
      ahead = null;
      await domainsOf(deps, plan, domainsSeen, note, planned);
      if (page.next !== null && plan.source.readAhead === true) {
        ahead = readPage(deps, plan, page.next);
        // Its failure is met when it is awaited; a run that ends first leaves it unread.
        ahead.catch(() => {});
      }
      const work = await pageLinks(deps, plan, page, seq, claimed, projects, doneRuns);
      if (saving !== null && (await saving)) {
        // Stopping: this page's links are made, so they are reported; its cursor is not passed.
        await save(work, false);
        throw new Cancelled();
      }
      const history =
        !plan.dryRun && deps.history !== null
          ? importPageHistory(deps, plan, work.planned, progress, note)
          : Promise.resolve();
      saving = history.then(() => save(work, true));
      // Its failure is met when it is awaited (before the next page's history, or at the end).
      saving.catch(() => {});
      // A source read in order (its history after its page's links) is read no further first.
      if (plan.source.readAhead !== true && (await saving)) throw new Cancelled();
      if (page.next === null) break;
    }
    if (await saving) throw new Cancelled();
  } catch (err) {
    // Nothing of the run is still under way once it ends (its last page's history and save).
    await saving?.catch(() => {});
    // Left running, its position as last saved: another node runs it on.
    if (plan.signal.reason instanceof HandingOver) return { status: 'running', progress };
    if (err instanceof Cancelled || plan.signal.aborted) status = 'cancelled';
    else {
      status = 'failed';
      note('', err instanceof SourceError ? err.message : `unexpected error: ${(err as Error).message ?? err}`);
      if (!(err instanceof SourceError)) deps.log.error(`import ${plan.id} failed`, err);
    }
  }
  // Done once what was handed over is counted (clickCount, statistics), not only stored.
  if (!plan.dryRun)
    await deps.history?.flush?.().catch((err) => deps.log.error(`import ${plan.id}: counting its history`, err));
  await finish(status);
  return { status, progress };
}

/** Resolves once the event loop has run its pending I/O (a macrotask, unlike an awaited promise). */
const loopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
