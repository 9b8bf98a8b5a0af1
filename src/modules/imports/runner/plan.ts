/**
 * What a run is given and what it ends with, and the two ways it stops without reading on (a
 * cancel, a hand-over): the words every file of the runner shares, kept apart so that none of
 * them imports another only for its types.
 */
import type { Access } from '../../access/public';
import type { RunTarget } from '../decide';
import type { HistoryMode } from '../model';
import type { ImportSource } from '../source';
import type { RunProgress } from '../store';
import type { ImportStatus } from '../table';

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

/** Notes a line of the run's errors (`source`: the source link's id, '' for the run itself). */
export type Note = (source: string, reason: string) => void;

/** Thrown inside a run when a cancel was asked for (DELETE) at a page boundary. */
export class Cancelled extends Error {}

/**
 * The reason a run is stopped without ending (its signal's): its node stops, and another node
 * holding a copy of its secret takes it on from its last saved page (takeover.ts).
 */
export class HandingOver extends Error {}
