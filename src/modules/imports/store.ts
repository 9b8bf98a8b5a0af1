/**
 * What the imports module keeps, in its own words: the runs, what each source link became (the
 * mapping that makes a re-run create nothing twice) and each run's report. One implementation
 * per engine beside it (sqlite/, postgres/).
 */
import type { ImportItemRow, ImportLinkRow, ImportRunRow, ImportStatus } from './table';

export type { ImportItemRow, ImportLinkRow, ImportRunRow, ImportStatus };

/** A run's progress as saved after each page. */
export interface RunProgress {
  linksSeen: number;
  linksCreated: number;
  linksSkipped: number;
  linksFailed: number;
  clicksImported: number;
  errors: { source: string; reason: string }[];
  cursor: string | null;
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
  /** Marks a run that is marked running but not alive failed with `reason`; whether it did. */
  markInterrupted(run: ImportRunRow, reason: string, now: number, isAlive: IsAlive): Promise<boolean>;
  /**
   * The newest run of the identity but `excludeId` (and with `file`, of that file: options.file,
   * its content's hash), when it did not finish (its cursor is where to resume); else null.
   */
  lastUnfinished(identity: string, excludeId: string, file: string | null): Promise<ImportRunRow | null>;
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
  /** A run's report lines after `afterSeq`, in order, at most `limit`. */
  items(runId: string, afterSeq: number, limit: number): Promise<ImportItemRow[]>;
}
