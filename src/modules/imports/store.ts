/**
 * What the imports module keeps, in its own words: the runs, what each source link became (the
 * mapping that makes a re-run create nothing twice) and each run's report. One implementation
 * per engine beside it (sqlite/, postgres/).
 */
import type { WriteTx } from '../../lib/write-tx';
import type { ImportItemRow, ImportLinkRow, ImportRunRow, ImportStatus } from './table';

export type { ImportItemRow, ImportLinkRow, ImportRunRow, ImportStatus };

/** A run's progress as saved after each page. */
export interface RunProgress {
  linksSeen: number;
  linksCreated: number;
  linksSkipped: number;
  /** Of linksSkipped, those an earlier run of the source made (report outcome `existing`). */
  linksExisting: number;
  linksFailed: number;
  clicksImported: number;
  errors: { source: string; reason: string }[];
  cursor: string | null;
}

/** A run's progress before its first page: nothing counted yet, to start at `cursor`. */
export function noProgress(cursor: string | null = null): RunProgress {
  return {
    linksSeen: 0,
    linksCreated: 0,
    linksSkipped: 0,
    linksExisting: 0,
    linksFailed: 0,
    clicksImported: 0,
    errors: [],
    cursor,
  };
}

/** This process's hold on a source identity while it runs an import of it. */
export interface RunClaim {
  /** Lets the identity go (the run ended, whatever its status). */
  release(): Promise<void>;
}

/** Whether a run marked running is still run by a live process (the engine's way of knowing). */
export type IsAlive = (run: ImportRunRow) => boolean;

export interface ImportStore {
  /**
   * Inserts `row` (status running) unless a live run of its identity is running: that run's id
   * then, nothing written. Runs of the identity marked running whose process is gone are marked
   * failed with `interrupted` first. The claim holds the identity until released (PostgreSQL: a
   * session advisory lock on a connection of its own, so a node that dies lets it go).
   */
  begin(row: ImportRunRow, interrupted: string, isAlive: IsAlive): Promise<{ claim: RunClaim } | { running: string }>;
  find(id: string): Promise<ImportRunRow | null>;
  /** Newest first, at most `limit`. */
  list(limit: number): Promise<ImportRunRow[]>;
  /**
   * Marks a run that is marked running but not alive failed with `reason` (PostgreSQL: unless a
   * live node holds a copy of its secret and is about to take it over); whether it did.
   */
  markInterrupted(run: ImportRunRow, reason: string, now: number, isAlive: IsAlive): Promise<boolean>;
  /**
   * The newest run of the identity but `excludeId` (and with `file`, of that file: options.file),
   * when it did not finish (its cursor is where to resume); else null. A run of a file is found
   * by the mark its cursor carries instead (service.ts fileResume, file-mark.ts).
   */
  lastUnfinished(identity: string, excludeId: string, file: string | null): Promise<ImportRunRow | null>;
  /**
   * The runs of the identity but `excludeId` (and but dry runs) of a file with this first line
   * (table.ts fileHead), newest first, at most `limit`, older than `before` when given: those a
   * file may resume (service.ts fileResume), by the index on them.
   */
  fileRuns(
    identity: string,
    fileHead: string,
    excludeId: string,
    limit: number,
    before: { startedAt: number; id: string } | null,
  ): Promise<ImportRunRow[]>;
  /** Saves a page's progress and report lines together; returns whether a cancel was asked for. */
  savePage(id: string, progress: RunProgress, items: ImportItemRow[]): Promise<boolean>;
  finish(id: string, status: ImportStatus, progress: RunProgress, endedAt: number): Promise<void>;
  /** Asks a running run to stop; false when it is not running. */
  requestCancel(id: string): Promise<boolean>;
  /** The mapping rows of these source ids of the identity. */
  mappings(identity: string, sourceIds: readonly string[]): Promise<Map<string, ImportLinkRow>>;
  /** Inserts or replaces a mapping row. */
  putMapping(row: ImportLinkRow): Promise<void>;
  /** Several mappings at once, in one write where the engine gains by it; absent: putMapping each. */
  putMappings?(rows: readonly ImportLinkRow[]): Promise<void>;
  /**
   * Mappings written inside a write transaction another store opened (the links' insert: see
   * LinkWrites.insertBulk's `also`), so they commit with what it wrote. On SQLite it writes
   * before it returns, as that transaction needs.
   */
  putMappingsIn(tx: WriteTx, rows: readonly ImportLinkRow[]): void | Promise<void>;
  /** Which of these source ids the run's report already has a line for. */
  reported(runId: string, sourceIds: readonly string[]): Promise<Set<string>>;
  /** A run's report lines after `afterSeq`, in order, at most `limit`. */
  items(runId: string, afterSeq: number, limit: number): Promise<ImportItemRow[]>;
  /** Where another node may take a crashed run over (PostgreSQL); absent: never. */
  readonly takeover?: TakeoverStore;
}

/** A node that may take a crashed run over: its instance and its key's public half. */
export interface LiveNode {
  instance: string;
  publicKey: string;
}

/**
 * What another node's takeover of a crashed run needs (PostgreSQL only: on SQLite every run is
 * one machine's process). docs/architecture.md, "An import".
 */
export interface TakeoverStore {
  /** Publishes this node's key and holds its liveness (a session advisory lock) until close(). */
  publish(node: LiveNode & { node: string; startedAt: number }): Promise<{ close(): Promise<void> }>;
  /** Whether this node's liveness is still held (its connection may have broken). */
  holds(instance: string): Promise<boolean>;
  /** The live nodes; the rows and sealed copies of dead ones are dropped on the way. */
  liveNodes(): Promise<LiveNode[]>;
  /** The instances a run's secret is sealed to. */
  sealedTo(runId: string): Promise<Set<string>>;
  putSealed(runId: string, copies: readonly { instance: string; sealed: string }[]): Promise<void>;
  /** The running runs keeping a sealed copy or a file: each either alive, about to be taken over, or lost. */
  keeping(): Promise<ImportRunRow[]>;
  /** The running runs with a copy sealed to this instance: those it may take over. */
  sealedFor(instance: string): Promise<{ run: ImportRunRow; sealed: string }[]>;
  /**
   * Takes the run's source lock when its node is gone (nobody holds it), and the run with it
   * when it is still running: recorded as this node's. Null when its node is alive or it ended.
   */
  takeOver(
    runId: string,
    owner: { node: string; pid: number; instance: string },
  ): Promise<{
    run: ImportRunRow;
    claim: RunClaim;
  } | null>;
  /**
   * Waits until the run's source lock is let go (its node died or handed it over), then does
   * what takeOver does. Null when the run ended, or at once when `signal` aborts the wait.
   */
  waitOver(
    runId: string,
    owner: { node: string; pid: number; instance: string },
    signal: AbortSignal,
  ): ReturnType<TakeoverStore['takeOver']>;
  /** Calls `wake` whenever a run's secret was sealed to some node (and when listening resumes); answers the way to stop. */
  listenSealed(wake: () => void): Promise<() => Promise<void>>;
  /** Keeps a file's bytes with the run, while it lives (a taking node reads them again). */
  putFile(runId: string, file: ReadableStream<Uint8Array>): Promise<void>;
  /** The file kept with the run, read a chunk at a time. */
  file(runId: string): ReadableStream<Uint8Array>;
}
