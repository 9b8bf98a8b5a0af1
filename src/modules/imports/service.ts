/**
 * Import verbs (docs/behaviour.md, "Imports"): start a run in the background, read runs, cancel
 * one, its report. Plain functions of (deps, access, input) that throw AppError, never HTTP.
 *
 * A run marked running whose process is gone (killed, crashed, a node lost) is taken over by
 * another live node when it has a copy of the run's secret sealed to it (PostgreSQL's service:
 * takeover.ts, resumeTakenOver below); else it is shown failed, "interrupted: run it again to
 * resume", as soon as anyone reads it or starts the same source again. A new run of the same
 * source resumes from the position the interrupted one saved.
 */
import { AppError, conflict, invalid, notFound } from '../../lib/errors';
import { newId, randomToken } from '../../lib/ids';
import type { Access } from '../access/public';
import { checkProjectId, domainOfHost } from '../links/public';
import type { ImportDeps } from './deps';
import { cursorOf, FileReading, fileHead, parseMarked, startsWith } from './file-mark';
import type { ConflictMode, HistoryMode, ImportJson } from './model';
import type { RunEnd } from './runner/plan';
import { runImport } from './runner/run';
import { type ImportSource, SourceError, type SourceName, WaitRefused } from './source';
import { type ImportRunRow, type ImportStore, type IsAlive, noProgress, type RunClaim } from './store';
import { ImportTakeover, type RunSecret } from './takeover';

export const INTERRUPTED = 'interrupted: run it again to resume';

/** The sources read from a file; `slink` also from another Slink's address. */
const FILE_SOURCES: ReadonlySet<SourceName> = new Set(['csv', 'slink']);

/**
 * The longest wait the request starting a run makes for its source (a 5xx tried again waits up
 * to 4 s): a rate limit asking for longer is answered at once, saying when to start again,
 * rather than holding the request (and the dashboard's button) for minutes.
 */
const START_PATIENCE_MS = 5000;

/**
 * The longest the request starting a run waits for its source's check, every attempt and wait
 * together: a source that takes the connection and never answers would otherwise hold it for
 * its run's patience (30 s a request, four attempts: about two minutes, sources/http.ts), and a
 * person pressing Start, or a script, is owed an answer soon. The run itself keeps that patience.
 */
export const START_CHECK_MS = 15_000;

export interface ImportRequest {
  source: SourceName;
  url: string | null;
  token: string | null;
  /** A file's bytes (csv, slink): read once by the source, hashed as they are (what may resume it: file-mark.ts). */
  file: Blob | null;
  domain: string | null;
  projectId: string | null;
  history: HistoryMode;
  onConflict: ConflictMode;
  dryRun: boolean;
}

/** The runs this process runs, by id: their cancel switch. One process, one map (exact liveness). */
const runningHere = new Map<string, AbortController>();
/** This process among those writing the database (recorded with each run it starts). */
const INSTANCE = randomToken();

/** Whether a run marked running still has a process (SQLite: the same machine's; PostgreSQL asks its lock). */
function aliveOf(deps: Pick<ImportDeps, 'nodeId'>): IsAlive {
  return (run) => {
    if (run.pid === process.pid) return runningHere.has(run.id);
    // Another machine's process cannot be asked: a file shared that way is not supported anyway.
    if (run.node !== deps.nodeId) return true;
    try {
      process.kill(run.pid, 0);
      return true;
    } catch (err) {
      return (err as { code?: string }).code === 'EPERM';
    }
  };
}

/** Runs of the same first line read at once while looking for the one a file resumes. */
const RESUMABLE_PAGE = 50;

/**
 * Where a run of `file` starts: the position of the newest run of the identity that read the
 * same first bytes (file-mark.ts), unless that run ended done; null: from the beginning. Only
 * runs of a file with the same first line can be that run: looked up by it, newest first.
 */
async function fileResume(
  deps: ImportDeps,
  identity: string,
  id: string,
  file: Blob,
  head: string,
): Promise<string | null> {
  let before: { startedAt: number; id: string } | null = null;
  for (;;) {
    const runs = await deps.stores.imports.fileRuns(identity, head, id, RESUMABLE_PAGE, before);
    for (const run of runs) {
      const marked = parseMarked(run.cursor);
      if (marked === null || !(await startsWith(file, marked))) continue;
      return run.status === 'done' ? null : marked.cursor;
    }
    const last = runs.at(-1);
    if (last === undefined || runs.length < RESUMABLE_PAGE) return null;
    before = { startedAt: last.startedAt, id: last.id };
  }
}

/** The address kept and compared: origin and path, never a query or user part (where tokens hide). */
function keptUrl(raw: string | null): string | null {
  if (raw === null) return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalid('url', 'url must be an absolute http(s) address');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('url', 'url must be an http(s) address');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

export function toImportJson(run: ImportRunRow): ImportJson {
  const o = run.options as Record<string, unknown>;
  return {
    id: run.id,
    source: run.source as SourceName,
    url: run.url,
    status: run.status,
    links: {
      seen: run.linksSeen,
      created: run.linksCreated,
      skipped: run.linksSkipped,
      existing: run.linksExisting,
      failed: run.linksFailed,
    },
    clicks: { imported: run.clicksImported },
    errors: run.errors,
    options: {
      domain: (o.domain as string | null) ?? null,
      projectId: (o.projectId as string | null) ?? null,
      history: (o.history as HistoryMode) ?? 'clicks',
      onConflict: (o.onConflict as ConflictMode) ?? 'skip',
      dryRun: o.dryRun === true,
    },
    startedAt: run.startedAt,
    endedAt: run.endedAt,
  };
}

/**
 * Checks the request and the source (one cheap request to it), records the run and starts it in
 * the background. `done` resolves when it ends (the CLI waits for it; the API answers 202 at once).
 */
export async function startImport(
  deps: ImportDeps,
  access: Access,
  input: ImportRequest,
  onPage?: Parameters<typeof runImport>[1]['onPage'],
): Promise<{ id: string; done: Promise<RunEnd> }> {
  if (input.file !== null && !FILE_SOURCES.has(input.source))
    throw invalid('file', `${input.source} is read through its API (url, token), not from a file`);
  if (input.source === 'csv' && input.file === null) throw invalid('file', 'csv reads a file: send one');
  if (input.source === 'slink' && input.file === null && input.url === null)
    throw invalid('file', 'slink reads an export file, or another Slink at url with token');
  const url = input.file !== null ? null : keptUrl(input.url);
  const domain = input.domain === null ? null : domainOfHost(deps.domains, input.domain);
  const projectId = await checkProjectId(deps, input.projectId);
  // Hashed as the source reads it: the mark saved with each position says which bytes it had read.
  const reading = input.file === null ? null : new FileReading(input.file.stream());
  let starting = true;
  const source = deps.sources(input.source, {
    url: input.url,
    token: input.token,
    file: reading?.stream ?? null,
    fetch: deps.fetch,
    sleep: (ms) => (starting && ms > START_PATIENCE_MS ? Promise.reject(new WaitRefused(ms)) : deps.sleep(ms)),
    allowPrivate: deps.config.upstreamAllowPrivate,
  });
  const controller = new AbortController();
  try {
    await checkInTime(deps, source, controller.signal, url, input.file !== null ? 'file' : 'url');
    starting = false;
  } catch (err) {
    if (!(err instanceof SourceError)) throw err;
    const field = err.field ?? (input.file !== null ? 'file' : 'url');
    throw invalid(field, `${input.source}: ${err.message}`);
  }
  // Where the links come from: the mappings' key and the lock's. A file's hash is not part of it
  // (a newer export of the same Slink maps to the links the older one made); it picks the run to
  // resume instead (lastUnfinished), so a different file never starts at another file's position.
  const identity = `${input.source} ${url ?? (input.file !== null ? 'file' : 'default')}`;
  const head = input.file === null ? null : await fileHead(input.file);
  const now = deps.clock.now();
  const row: ImportRunRow = {
    id: newId('imp'),
    source: input.source,
    url,
    identity,
    options: {
      domain: domain?.host ?? null,
      projectId,
      history: input.history,
      onConflict: input.onConflict,
      dryRun: input.dryRun,
      ...(input.file === null ? {} : { file: true }),
    },
    status: 'running',
    ...noProgress(),
    cancelRequested: false,
    node: deps.nodeId,
    pid: process.pid,
    instance: INSTANCE,
    accountId: access.accountId,
    via: access.via,
    startedAt: now,
    endedAt: null,
    fileHead: head,
  };
  // Known here before the row is visible: a read meanwhile must not take it for a dead run.
  runningHere.set(row.id, controller);
  let begun: Awaited<ReturnType<ImportDeps['stores']['imports']['begin']>>;
  try {
    begun = await deps.stores.imports.begin(row, INTERRUPTED, aliveOf(deps));
  } catch (err) {
    runningHere.delete(row.id);
    throw err;
  }
  if ('running' in begun) {
    runningHere.delete(row.id);
    throw conflict('source', `An import of this source is already running (${begun.running})`);
  }
  // Only a run of the same file resumes a stopped run of a file (file-mark.ts).
  const resumed = input.dryRun
    ? null
    : input.file !== null
      ? await fileResume(deps, identity, row.id, input.file, head!)
      : ((await deps.stores.imports.lastUnfinished(identity, row.id, null))?.cursor ?? null);
  const afterPage = await handOver(deps, row.id, { url: input.url, token: input.token }, input.file);
  const done = runImport(deps, {
    id: row.id,
    identity,
    access,
    source,
    target: { domain, projectId, onConflict: input.onConflict },
    history: input.history,
    dryRun: input.dryRun,
    cursor: resumed,
    fileMark: reading === null ? undefined : () => reading.mark(),
    signal: controller.signal,
    onPage,
    afterPage,
  });
  const settled = settle(deps, row.id, done, begun.claim);
  if (afterPage) deps.takeover?.hold(row.id, controller, settled);
  return { id: row.id, done: settled };
}

/**
 * The source's check, given up (a SourceError) once it has taken the start's patience. Its
 * signal is the run's too (a stream the check opens is read on by the run, and cancelled with it).
 */
async function checkInTime(
  deps: Pick<ImportDeps, 'startCheckMs'>,
  source: ImportSource,
  signal: AbortSignal,
  url: string | null,
  field: 'url' | 'file',
): Promise<void> {
  const patience = deps.startCheckMs ?? START_CHECK_MS;
  const deadline = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const where = url === null ? '' : ` at ${url}`;
      const error = new SourceError(
        `the source did not answer within ${patience / 1000} s${where}; check the address, or start again once it answers`,
        true,
        field,
      );
      deadline.abort(error);
      reject(error);
    }, patience);
  });
  try {
    await Promise.race([source.check(AbortSignal.any([signal, deadline.signal])), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A run's end: its source let go, and a failure of its own bookkeeping logged, never unhandled. */
function settle(deps: ImportDeps, id: string, run: Promise<RunEnd>, claim: RunClaim): Promise<RunEnd> {
  const done = run.finally(async () => {
    runningHere.delete(id);
    await claim.release().catch((err) => deps.log.error(`import ${id}: releasing its source failed`, err));
  });
  // The API does not wait.
  done.catch((err) => deps.log.error(`import ${id} ended in error`, err));
  return done;
}

/**
 * Makes a run one another node can take over, where this process takes part in that: its file
 * kept with it, its secret sealed to the other live nodes now and after each page (to nodes
 * that came since). Answers the step to take after each page. A failure leaves the run to
 * this process alone (logged): it runs as it would have.
 */
async function handOver(
  deps: ImportDeps,
  id: string,
  secret: RunSecret,
  file: Blob | null,
): Promise<(() => Promise<void>) | undefined> {
  const takeover = deps.takeover;
  const store = deps.stores.imports.takeover;
  if (!takeover?.active || !store) return undefined;
  try {
    if (file !== null) await store.putFile(id, file.stream());
    await takeover.seal(id, secret);
  } catch (err) {
    deps.log.error(`import ${id}: another node could not take it over`, err);
    return undefined;
  }
  return () => takeover.seal(id, secret);
}

/** Who a taken-over run acts as: the account and door that started it (audited the same). */
function accessOfRun(run: ImportRunRow): Access {
  return {
    accountId: run.accountId,
    keyId: null,
    role: 'admin',
    scope: 'write',
    projects: null,
    domains: null,
    via: run.via as Access['via'],
    superuser: true,
  };
}

/**
 * Runs on a run whose node died, taken over by this one (takeover.ts holds its source's lock):
 * from its saved position, under the same id, its counts and report going on. Without its
 * secret (the copy did not open) it is failed "interrupted" as a run no node could take over.
 */
export async function resumeTakenOver(
  deps: ImportDeps,
  taken: { run: ImportRunRow; claim: RunClaim },
  secret: RunSecret | null,
): Promise<{ done: Promise<RunEnd> }> {
  const { run, claim } = taken;
  const o = run.options as Record<string, unknown>;
  const progress = {
    linksSeen: run.linksSeen,
    linksCreated: run.linksCreated,
    linksSkipped: run.linksSkipped,
    linksExisting: run.linksExisting,
    linksFailed: run.linksFailed,
    clicksImported: run.clicksImported,
    errors: [...run.errors, ...(secret === null ? [{ source: '', reason: INTERRUPTED }] : [])],
    cursor: cursorOf(run.cursor),
  };
  const failed = async (): Promise<RunEnd> => {
    await deps.stores.imports.finish(run.id, 'failed', progress, deps.clock.now());
    return { status: 'failed', progress };
  };
  const controller = new AbortController();
  runningHere.set(run.id, controller);
  if (secret === null) return { done: settle(deps, run.id, failed(), claim) };
  let source: ImportSource;
  let domain: ReturnType<typeof domainOfHost> | null;
  let reading: FileReading | null = null;
  try {
    const store = deps.stores.imports.takeover;
    reading = o.file !== undefined && store ? new FileReading(store.file(run.id)) : null;
    const file = reading?.stream ?? null;
    domain = typeof o.domain === 'string' ? domainOfHost(deps.domains, o.domain) : null;
    source = deps.sources(run.source as SourceName, {
      url: secret.url,
      token: secret.token,
      file,
      fetch: deps.fetch,
      sleep: deps.sleep,
      allowPrivate: deps.config.upstreamAllowPrivate,
    });
    await source.check(controller.signal);
  } catch (err) {
    progress.errors.push({ source: '', reason: `taken over: ${(err as Error).message ?? err}` });
    return { done: settle(deps, run.id, failed(), claim) };
  }
  const afterPage = await handOver(deps, run.id, secret, null);
  const done = runImport(deps, {
    id: run.id,
    identity: run.identity,
    access: accessOfRun(run),
    source,
    target: {
      domain,
      projectId: (o.projectId as string | null) ?? null,
      onConflict: (o.onConflict as ConflictMode) ?? 'skip',
    },
    history: (o.history as HistoryMode) ?? 'clicks',
    dryRun: o.dryRun === true,
    cursor: cursorOf(run.cursor),
    fileMark: reading === null ? undefined : () => reading.mark(),
    progress,
    signal: controller.signal,
    afterPage,
  });
  const settled = settle(deps, run.id, done, claim);
  if (afterPage) deps.takeover?.hold(run.id, controller, settled);
  return { done: settled };
}

/** A run as stored, a dead run marked interrupted first. */
async function current(deps: ImportDeps, run: ImportRunRow): Promise<ImportRunRow> {
  if (run.status !== 'running') return run;
  const marked = await deps.stores.imports.markInterrupted(run, INTERRUPTED, deps.clock.now(), aliveOf(deps));
  return marked ? ((await deps.stores.imports.find(run.id)) ?? run) : run;
}

export async function getImportRow(deps: ImportDeps, id: string): Promise<ImportRunRow> {
  const run = await deps.stores.imports.find(id);
  if (!run) throw notFound('import');
  return current(deps, run);
}

export async function getImport(deps: ImportDeps, id: string): Promise<ImportJson> {
  return toImportJson(await getImportRow(deps, id));
}

/** The newest 100 runs, newest first. */
export async function listImports(deps: ImportDeps): Promise<{ items: ImportJson[] }> {
  const runs = await deps.stores.imports.list(100);
  const items: ImportJson[] = [];
  for (const run of runs) items.push(toImportJson(await current(deps, run)));
  return { items };
}

/**
 * Cancels a running run: it stops at its next page boundary (at once when this process runs it
 * and it waits on the source), status cancelled. A run that ended is answered as it is.
 */
export async function cancelImport(deps: ImportDeps, id: string): Promise<ImportJson> {
  const run = await getImportRow(deps, id);
  if (run.status !== 'running') return toImportJson(run);
  await deps.stores.imports.requestCancel(id);
  runningHere.get(id)?.abort(new AppError('conflict', 'cancelled'));
  return toImportJson((await deps.stores.imports.find(id)) ?? run);
}

/**
 * This node's part in taking crashed runs over (PostgreSQL's service starts it), or null where
 * a run dies with its process. `deps` is read when a run is taken over (the root builds both).
 */
export function openImportTakeover(deps: () => ImportDeps, store: ImportStore): ImportTakeover | null {
  if (!store.takeover) return null;
  return new ImportTakeover(
    store.takeover,
    deps,
    randomToken(),
    async (found, secret) => {
      await resumeTakenOver(deps(), found, secret);
    },
    async (run) => {
      await current(deps(), run);
    },
  );
}
