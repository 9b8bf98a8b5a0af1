/**
 * One import run, start to end, in the background of the process that started it: pages of
 * links from the source, each decided by Slink's rules (decide.ts) and the page's new links
 * written in one transaction through the LinkWriter (audited, webhooks and the slug index as
 * any link write), then each link's history through the HistoryWriter from the position its
 * mapping saved (moved on in the transaction that stores each batch of it). After each page the run's counters, report lines and cursor are saved: a run
 * stopped or crashed mid-way is resumed by the next run of the same source from there, and
 * the mapping (source link -> link, written in the link's transaction) makes the repeated part
 * create nothing twice. One bad link never stops a run; a source that cannot be read does.
 */
import { Value } from '@sinclair/typebox/value';
import { AppError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { shortUrlOf } from '../../lib/short-url';
import type { Access } from '../access/public';
import { auditEntry } from '../audit/public';
import {
  addDomain,
  checkNewDomain,
  checkNewDomainPatch,
  DomainCreateBody,
  type DomainFacts,
  DomainPatchBody,
  hostKeyOf,
  updateDomain,
} from '../domains/public';
import { insertBulkLinks, insertVariant, type LinkRow } from '../links/public';
import { decideLink, type PlannedVariant, type RunTarget, slugsOf, variantsOf } from './decide';
import type { ImportDeps } from './deps';
import { markedCursor } from './file-mark';
import type { HistoryPosition } from './history';
import type { HistoryMode } from './model';
import {
  type CountedOnly,
  type ImportSource,
  type SourceDomain,
  SourceError,
  type SourceLink,
  type SourcePage,
  type SourceVisit,
  withCounts,
} from './source';
import { type ImportItemRow, type ImportLinkRow, noProgress, type RunProgress } from './store';
import type { ImportStatus } from './table';

/** The errors a run keeps (the contract's first 100). */
const MAX_ERRORS = 100;

const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);
/** Attempts at reading a page when the source says retrying may help, waiting longer each time. */
const PAGE_ATTEMPTS = 5;
const RETRY_BASE_MS = 1000;
/**
 * Links of a page whose history is read and written at once: enough for the writer to take
 * many links' visits together, few enough that their batches in memory stay small.
 */
const HISTORY_IN_FLIGHT = 64;

export interface RunPlan {
  id: string;
  identity: string;
  access: Access;
  source: ImportSource;
  target: RunTarget;
  history: HistoryMode;
  dryRun: boolean;
  /** Where to start: the saved cursor of the last unfinished run of the source, or null. */
  cursor: string | null;
  /**
   * A file run's mark of the bytes its source has read (file-mark.ts), saved with its position
   * after each page and at its end; absent: a run of no file.
   */
  fileMark?: () => string;
  /** Where a run taken over from a dead node stands (its counts and report so far); absent: nothing yet. */
  progress?: RunProgress;
  signal: AbortSignal;
  /** Called after each page is saved (the CLI's progress). */
  onPage?: (progress: RunProgress) => void;
  /** Awaited after each page is saved (its secret sealed to the nodes that came since); a failure is logged. */
  afterPage?: () => Promise<void>;
}

export interface RunEnd {
  status: ImportStatus;
  progress: RunProgress;
}

/** Thrown inside a run when a cancel was asked for (DELETE) at a page boundary. */
class Cancelled extends Error {}

/**
 * The reason a run is stopped without ending (its signal's): its node stops, and another node
 * holding a copy of its secret takes it on from its last saved page (takeover.ts).
 */
export class HandingOver extends Error {}

export async function runImport(deps: ImportDeps, given: RunPlan): Promise<RunEnd> {
  // A dry run makes no domain: it decides the links on those it would make as if it had.
  const planned = new Map<string, DomainFacts>();
  const plan: RunPlan = given.dryRun ? { ...given, target: { ...given.target, planned } } : given;
  const progress: RunProgress = plan.progress
    ? { ...plan.progress, errors: [...plan.progress.errors], cursor: plan.cursor }
    : noProgress(plan.cursor);
  const store = deps.stores.imports;
  /** The progress as stored: a file run's position with the mark of the bytes read by then. */
  const saved = (p: RunProgress): RunProgress =>
    plan.fileMark === undefined ? p : { ...p, cursor: markedCursor(p.cursor, plan.fileMark()) };
  const note = (source: string, reason: string) => {
    if (progress.errors.length < MAX_ERRORS) progress.errors.push({ source, reason });
  };
  const claimed = new Set<string>();
  /** The source's domains looked at (made, found or refused), by origin. */
  const domainsSeen = new Set<string>();
  /** Project names of the source -> the Slink project's id (null: a dry run would make it). */
  const projects = new Map<string, string | null>();
  /** Whether the runs its links' mappings name ended done (their report whole), by id. */
  const doneRuns = new Map<string, boolean>();
  let status: ImportStatus = 'done';
  /** The report's line numbers, after those of a run taken over. */
  const seq = { last: progress.linksSeen };
  /**
   * Counts a page in and saves it with its report lines; `advance`: its history is all stored,
   * so the cursor moves past it. A stop mid-page leaves links of it without their history: the
   * page is read again on the resume (its links are then `existing`, their history carried on
   * from their positions). Resolves whether the run is to stop (a cancel asked for, or aborted).
   */
  const save = async (work: PageWork, advance: boolean): Promise<boolean> => {
    // Handed over: nothing of this page is saved; the node taking it on reads it again.
    if (plan.signal.reason instanceof HandingOver) return true;
    const { linksSeen, linksCreated, linksSkipped, linksExisting, linksFailed, cursor } = progress;
    const noted = progress.errors.length;
    progress.linksSeen += work.tally.seen;
    progress.linksCreated += work.tally.created;
    progress.linksSkipped += work.tally.skipped;
    progress.linksFailed += work.tally.failed;
    progress.linksExisting += work.planned.filter((p) => p.item.outcome === 'existing').length;
    for (const n of work.tally.notes) note(n.source, n.reason);
    if (advance && !plan.signal.aborted) progress.cursor = work.page.next;
    let cancel: boolean;
    try {
      cancel = await store.savePage(
        plan.id,
        saved(progress),
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
  await store.finish(plan.id, status, saved(progress), deps.clock.now());
  return { status, progress };
}

/**
 * A visit's time a click can have: from 1970 to a day past now (the old service's clock may run
 * a little ahead). Any other (none given, before 1970, in years to come) is not imported.
 */
const clickTime = (at: number, now: number) => Number.isFinite(at) && at >= 0 && at <= now + 86_400_000;

/** A source's day (YYYY-MM-DD) clicks can have been counted on: none after tomorrow's (UTC). */
const clickDay = (day: string, now: number) => day <= dayOf(now + 86_400_000);

/** Resolves once the event loop has run its pending I/O (a macrotask, unlike an awaited promise). */
const loopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A page of the source, retried while the source says a retry may help. */
async function readPage(deps: ImportDeps, plan: RunPlan, cursor: string | null) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await plan.source.page(cursor, plan.signal);
    } catch (err) {
      if (plan.signal.aborted) throw new Cancelled();
      if (!(err instanceof SourceError) || !err.retryable || attempt === PAGE_ATTEMPTS) throw err;
      await deps.sleep(RETRY_BASE_MS * 2 ** (attempt - 1));
    }
  }
}

interface Planned {
  link: SourceLink;
  item: ImportItemRow;
  /** The link to make (null: none, the item says why) and the id of an existing one. */
  row: LinkRow | null;
  tags: string[];
  variants: PlannedVariant[];
  linkId: string | null;
  mapping: ImportLinkRow | null;
}

/** What a page's links came to, counted into the run's progress when the page is saved. */
interface Tally {
  seen: number;
  created: number;
  skipped: number;
  failed: number;
  notes: { source: string; reason: string }[];
}

/** A page whose links are decided and made; its history is stored next. */
interface PageWork {
  page: SourcePage;
  planned: Planned[];
  tally: Tally;
}

/** Decides a page's links and makes the new ones (their history is importPageHistory's). */
async function pageLinks(
  deps: ImportDeps,
  plan: RunPlan,
  page: SourcePage,
  seq: { last: number },
  claimed: Set<string>,
  projects: Map<string, string | null>,
  doneRuns: Map<string, boolean>,
): Promise<PageWork> {
  const { links } = page;
  const tally: Tally = { seen: 0, created: 0, skipped: 0, failed: 0, notes: [] };
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
      // Made and reported by this run on an earlier page (a file giving its slug again): decided
      // anew, so the repeat is skipped as one on the same page is, not reported imported before.
      if (entry.mapping?.runId === plan.id && !unreported.has(link.sourceId)) entry.mapping = null;
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
    if (p.item.outcome === 'skipped' || p.item.outcome === 'failed')
      tally.notes.push({ source: p.link.sourceId, reason: p.item.reason ?? '' });
  }
  return { page, planned, tally };
}

/**
 * The source ids of `mappings` whose link an import made but never reported: made on a page
 * its run had not saved when it stopped (its node died, another took the run over; or its
 * process died, failed, and this run resumes the source), so that page, read again now, counts
 * them created, not imported before. A run that ended done saved every page it made links on;
 * of the others (this one included: a source listing a link twice), their report says.
 */
async function madeUnreported(
  deps: ImportDeps,
  plan: RunPlan,
  mappings: readonly ImportLinkRow[],
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

/** What a domain's short URLs start with, a domain a dry run would make included. */
function originOf(deps: ImportDeps, plan: RunPlan, domainId: number): string {
  if (domainId < 0) for (const d of plan.target.planned?.values() ?? []) if (d.id === domainId) return d.origin;
  return deps.domains.originOf(domainId);
}

/**
 * The history of a page's links, several links at once (the source's requests side by side,
 * the writes side by side so the writer takes them together): up to the source's
 * historyInFlight (else HISTORY_IN_FLIGHT) links in flight, each link's batches in order, its
 * position saved after each. Resolves once every started link is done, so the page's position
 * is saved after all its history; a stop starts no further link (the page is then read again
 * on the resume); a link that fails is noted and the others go on. Memory: the links in flight's batches, never the page's visits.
 */
async function importPageHistory(
  deps: ImportDeps,
  plan: RunPlan,
  planned: readonly Planned[],
  progress: RunProgress,
  note: (source: string, reason: string) => void,
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

/**
 * Waits for every one of the writes started side by side, then throws the first failure: a
 * failure fails the run as it did one write after another, but only once none of its
 * page's writes is still under way.
 */
async function settled(writes: Promise<unknown>[]): Promise<void> {
  for (const end of await Promise.allSettled(writes)) if (end.status === 'rejected') throw end.reason;
}

/**
 * The Slink projects of the source links' project names: found by name (case folded as project
 * names are), or made (audited as project.create) unless this is a dry run.
 */
async function projectsOf(
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
async function domainsOf(
  deps: ImportDeps,
  plan: RunPlan,
  seen: Set<string>,
  note: (source: string, reason: string) => void,
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
      const reason = err instanceof AppError && err.field ? `${err.field}: ${err.message}` : (err as Error).message;
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

/**
 * Writes a page's new links and their mappings in one transaction (the links' insert runs the
 * mappings' statement in it): a run that dies finds each link with its mapping, or neither. A
 * link with variants is mapped `creating` there, then `created` once its variants are made: a
 * run that dies in between finds it `creating` and makes its missing variants (pageLinks).
 */
async function writeLinks(deps: ImportDeps, plan: RunPlan, planned: Planned[], now: number) {
  /** The links to make: narrowed to those made when the page's insert fails on some row. */
  let making = planned;
  const store = deps.stores.imports;
  const mapping = (p: Planned, state: 'creating' | 'created'): ImportLinkRow => ({
    identity: plan.identity,
    sourceId: p.link.sourceId,
    linkId: p.row!.id,
    state,
    runId: plan.id,
    visitAt: p.mapping?.visitAt ?? null,
    visitAtCount: p.mapping?.visitAtCount ?? 0,
    day: p.mapping?.day ?? null,
    totalSet: p.mapping?.totalSet ?? false,
    sourceCounts: p.mapping?.sourceCounts ?? null,
    at: now,
  });
  const fields = ['destination', 'domain', 'slug', ...(plan.target.projectId !== null ? ['projectId'] : [])];
  const audit = auditEntry(plan.access, 'link.create', { type: 'link', id: '' }, fields, now);
  const insert = (some: Planned[]) => {
    const byId = new Map(some.map((p) => [p.row!.id, p]));
    return insertBulkLinks(
      deps,
      some.map((p) => ({ row: p.row!, tags: p.tags })),
      {
        skipExisting: false,
        // A slug taken meanwhile (by another writer, between the decision and the write).
        freshSlug: () => {
          throw new Error('slug taken meanwhile');
        },
        // The mappings of the links written, in their transaction.
        also: (tx, written) =>
          store.putMappingsIn(
            tx,
            written.map((w) => {
              const p = byId.get(w.row.id)!;
              return mapping(p, p.variants.length > 0 ? 'creating' : 'created');
            }),
          ),
      },
      audit,
    );
  };
  const failed = (p: Planned, err: unknown) => {
    p.item.outcome = 'failed';
    p.item.reason = (err as Error).message ?? String(err);
  };
  try {
    await insert(making);
  } catch (err) {
    if (making.length === 1) {
      failed(making[0]!, err);
      return;
    }
    // The page's insert failed on some row: each link alone, so only that one fails with its reason.
    const made: Planned[] = [];
    for (const p of making) {
      try {
        await insert([p]);
        made.push(p);
      } catch (one) {
        failed(p, one);
      }
    }
    making = made;
  }
  for (const p of making) p.mapping = mapping(p, 'created');
  // The variants of the links that have some, the links side by side; then their mappings.
  const varied = making.filter((p) => p.variants.length > 0);
  if (varied.length === 0) return;
  await settled(varied.map((p) => makeVariants(deps, plan, p.row!.id, p.variants, now)));
  await putMappings(
    deps,
    varied.map((p) => p.mapping!),
  );
}

/**
 * A new link's variants, before its clicks (a click names the variant it went through): those of
 * `variants` whose code the link has not yet, so a resumed run completes a link whose variants a
 * stopped run never made and makes none twice.
 */
async function makeVariants(deps: ImportDeps, plan: RunPlan, linkId: string, variants: PlannedVariant[], now: number) {
  if (variants.length === 0) return;
  const have = new Set(((await deps.stores.variants.ofLinks([linkId])).get(linkId) ?? []).map((v) => v.code));
  for (const v of variants) {
    if (have.has(v.code)) continue;
    const id = newId('var');
    const audit = auditEntry(plan.access, 'variant.create', { type: 'variant', id }, ['code', 'params'], now);
    const row = { id, linkId, code: v.code, params: v.params, clickCount: 0, createdAt: now, updatedAt: now };
    await insertVariant(deps, row, audit);
  }
}

/**
 * A page's mappings: in one transaction where the store has it (one commit for the page),
 * else side by side.
 */
async function putMappings(deps: ImportDeps, rows: ImportLinkRow[]) {
  const store = deps.stores.imports;
  if (store.putMappings) await store.putMappings(rows);
  else await settled(rows.map((row) => store.putMapping(row)));
}

/** The daily counts a link with visits has besides them (SourceLink.daysToo), after the newest day stored. */
async function daysToo(
  source: ImportSource,
  link: SourceLink,
  mapping: ImportLinkRow,
  signal: AbortSignal,
  now: number,
) {
  if (link.daysToo !== true || !source.days) return [];
  const days = await source.days(link, mapping.day, signal);
  return days.filter((d) => (mapping.day === null || d.day > mapping.day) && clickDay(d.day, now));
}

/**
 * Whether a visit is one a run stores, read in order from the newest instant stored: after it,
 * or at it past the visits stored at it (a position saved with no count skips every one there).
 */
function freshOf(mapping: ImportLinkRow): (v: SourceVisit) => boolean {
  const from = mapping.visitAt;
  let skip = mapping.visitAtCount === 0 ? Number.POSITIVE_INFINITY : mapping.visitAtCount;
  return (v) => {
    if (from !== null && !(v.at >= from)) return false;
    if (v.at === from && skip > 0) {
      skip--;
      return false;
    }
    return true;
  };
}

/** The visits and days a run is to store for a link, counted by kind (a pass of its own over them). */
async function freshCounts(
  source: ImportSource,
  link: SourceLink,
  mapping: ImportLinkRow,
  signal: AbortSignal,
  now: number,
) {
  const isFresh = freshOf(mapping);
  const visits: SourceVisit[] = [];
  const from = mapping.visitAt === null ? null : mapping.visitAt - 1;
  for await (const batch of source.visits!(link, from, signal))
    for (const v of batch) if (clickTime(v.at, now) && isFresh(v)) visits.push(v);
  return withCounts({ clicks: 0, uniques: 0, bots: 0 }, visits, await daysToo(source, link, mapping, signal, now));
}

/** What the source's counts grew by since `before` that `fresh` does not hold, by kind (never below 0). */
function grownBy(now: CountedOnly, before: CountedOnly, fresh: CountedOnly): CountedOnly {
  const grown = (k: keyof CountedOnly) => Math.max(0, now[k] - before[k] - fresh[k]);
  return { clicks: grown('clicks'), uniques: grown('uniques'), bots: grown('bots') };
}

/**
 * A link's history, from where its mapping says the last run stopped: visits after the newest
 * stored, days after the newest stored, the total (or another Slink's counts beyond its visits
 * and days) once. Returns the clicks stored.
 */
async function importHistory(deps: ImportDeps, plan: RunPlan, link: SourceLink, mapping: ImportLinkRow) {
  const writer = deps.history!;
  const { source } = plan;
  // Each position is saved by the writer in the transaction that stores what it follows.
  const at = (moved: Omit<HistoryPosition, 'identity' | 'sourceId'>): HistoryPosition => ({
    identity: plan.identity,
    sourceId: link.sourceId,
    runId: plan.id,
    ...moved,
  });
  let stored = 0;
  const kind = link.history;
  if (kind === 'visits' && source.visits) {
    // Another Slink's counts beyond the visits and days (countedOnly): added before them. The
    // first time, as the export says; after, what its own counts of the link grew by since
    // the last taken that the visits and days stored now do not hold (clicks retention removed
    // there meanwhile), never what this Slink holds already. With nothing to add, the first
    // position saved says they were taken all the same.
    let once: Pick<HistoryPosition, 'totalSet' | 'sourceCounts'> = {};
    const rest = link.countedOnly;
    if (rest != null) {
      // Per visit by kind: a daily import stores them as days, so only the first counts then.
      const counts = plan.history === 'daily' ? undefined : (link.sourceCounts ?? undefined);
      const taken = { totalSet: true as const, ...(counts === undefined ? {} : { sourceCounts: counts }) };
      const add = !mapping.totalSet
        ? rest
        : mapping.sourceCounts !== null && counts !== undefined
          ? grownBy(
              counts,
              mapping.sourceCounts,
              await freshCounts(source, link, mapping, plan.signal, deps.clock.now()),
            )
          : null;
      if (add !== null && add.clicks + add.uniques + add.bots > 0)
        stored += await writer.countedOnly(mapping.linkId, source.name, add, at(taken));
      else if (!mapping.totalSet || counts !== undefined) once = taken;
    }
    if (plan.history === 'daily') {
      // Visits counted per UTC day, from the day after the newest stored.
      const after = mapping.day === null ? null : Date.parse(`${mapping.day}T23:59:59.999Z`);
      const counts = new Map<string, number>();
      const now = deps.clock.now();
      for await (const batch of source.visits(link, after, plan.signal))
        for (const v of batch) if (clickTime(v.at, now)) counts.set(dayOf(v.at), (counts.get(dayOf(v.at)) ?? 0) + 1);
      for (const d of await daysToo(source, link, mapping, plan.signal, deps.clock.now()))
        counts.set(d.day, (counts.get(d.day) ?? 0) + d.clicks);
      const days = [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, clicks]) => ({ day, clicks }));
      if (days.length > 0)
        stored += await writer.days(mapping.linkId, source.name, days, at({ day: days.at(-1)!.day, ...once }));
      return stored;
    }
    // Read again from the newest instant stored, skipping the visits stored at it: a source's
    // times are often to the second, and more may have come in that second since. A position
    // saved with no count (before counts were kept) skips every visit at its instant.
    const from = mapping.visitAt;
    const isFresh = freshOf(mapping);
    let newest = mapping.visitAt;
    let atNewest = mapping.visitAtCount;
    const now = deps.clock.now();
    for await (const batch of source.visits(link, from === null ? null : from - 1, plan.signal)) {
      const fresh: SourceVisit[] = [];
      for (const v of batch) {
        if (!clickTime(v.at, now) || !isFresh(v)) continue;
        fresh.push(v);
        if (newest === null || v.at > newest) {
          newest = v.at;
          atNewest = 1;
        } else if (v.at === newest) atNewest++;
      }
      if (fresh.length === 0 || newest === null) continue;
      stored += await writer.visits(
        mapping.linkId,
        source.name,
        fresh,
        at({ visitAt: newest, visitAtCount: atNewest, ...once }),
      );
    }
    // Its daily counts besides (another Slink's imported ones), from their own position.
    const days = await daysToo(source, link, mapping, plan.signal, deps.clock.now());
    if (days.length > 0)
      stored += await writer.days(mapping.linkId, source.name, days, at({ day: days.at(-1)!.day, ...once }));
    return stored;
  }
  if (kind === 'daily' && source.days) {
    const now = deps.clock.now();
    const days = (await source.days(link, mapping.day, plan.signal)).filter(
      (d) => (mapping.day === null || d.day > (mapping.day as string)) && clickDay(d.day, now),
    );
    if (days.length > 0) stored += await writer.days(mapping.linkId, source.name, days, at({ day: days.at(-1)!.day }));
    return stored;
  }
  if (kind === 'total' && link.totalClicks !== null) {
    // A count no link holds (negative, a fraction, past 2^53: a CSV may say anything) is not
    // stored by the writer, so not counted as imported either.
    if (mapping.totalSet || !Number.isSafeInteger(link.totalClicks) || link.totalClicks < 0) return 0;
    await writer.total(mapping.linkId, source.name, link.totalClicks, at({ totalSet: true }));
    return link.totalClicks;
  }
  return stored;
}
