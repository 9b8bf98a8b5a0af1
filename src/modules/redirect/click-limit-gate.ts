/**
 * Who lets a human click through on a link with a click limit (docs/behaviour.md, "Humans and
 * bots"). The redirect has already answered 410 without asking when the node's own count (the
 * slug index's `humanClicks`) says the limit is reached: that count only ever holds clicks that
 * happened, so it never says so wrongly. Below it:
 *
 * - One process holds every click (SQLite): its count is the true one, and single-threaded
 *   JavaScript makes check and increment one step. `localGate` counts and lets through, at once.
 * - Several processes on one database (PostgreSQL): the count they share decides
 *   (ClickLimitStore: one conditional statement per human click, exact however many ask at once).
 *   The answer raises the node's own count to what it learned, so once the limit is reached
 *   each node answers 410 from memory again. While the database cannot be reached (an error,
 *   or no answer within REACH_TIMEOUT_MS), the node decides from its own count, as one process
 *   would, and one click at a time asks again while the others wait for its answer: the limit
 *   then holds per node only, and what nodes let through meanwhile counts once the database is
 *   back (the store raises the shared count to the node's and the stored counts).
 *
 * Links without a limit never get here: their redirect asks no one.
 */
import { storageFailure } from '../../db/storage';
import type { Logger } from '../../lib/log';
import { countCaptured, raiseHumanClicks } from '../clicks/public';
import type { ClickLimitStore } from '../links/public';
import type { LinkTable } from './link-table';

/** Let through (counted), refused (the limit is reached), or the link went away meanwhile. */
export type Admission = 'admitted' | 'refused' | 'gone';

export interface ClickLimitGate {
  /**
   * One human click on the link in `slot`, whose own count is below `limit`: counts it when it
   * is let through. A promise only when another process must be asked.
   */
  admit(links: LinkTable, slot: number, limit: number): Admission | Promise<Admission>;
}

/** One process (SQLite): its own count is exact (the redirect checked it is below the limit). */
export const localGate: ClickLimitGate = {
  admit(links, slot) {
    countCaptured(links, slot, false);
    return 'admitted';
  },
};

/**
 * How long a redirect waits for the shared count before deciding alone: as long as a redirect
 * waits at most for the click writer (clicks/capture/buffer.ts MAX_WAIT_MS), so an unreachable
 * database never holds visitors longer than a failing one does.
 */
export const REACH_TIMEOUT_MS = 1000;

/** Several processes on one database (PostgreSQL): the shared count decides (see the file's comment). */
export class SharedClickLimitGate implements ClickLimitGate {
  /** False since the shared count could not be reached, until it answers again. */
  private reachable = true;
  /** While unreachable: the one click asking again, resolving to whether it was answered. */
  private probe: Promise<boolean> | null = null;

  constructor(
    private readonly store: ClickLimitStore,
    private readonly log: Logger,
    private readonly timeoutMs = REACH_TIMEOUT_MS,
  ) {}

  admit(links: LinkTable, slot: number, limit: number): Promise<Admission> {
    return this.decide(links, slot, links.linkId(slot), limit);
  }

  private async decide(links: LinkTable, slot: number, id: string, limit: number): Promise<Admission> {
    if (!this.reachable && this.probe !== null) {
      // One click at a time asks a count that did not answer; the others wait for its answer
      // (not deciding alone meanwhile: the count may be back, and the limit exact again).
      const answered = await this.probe;
      // The slot may have been freed (the link deleted) and given to another link meanwhile.
      if (links.findId(id) !== slot) return 'gone';
      if (!answered) return decideLocally(links, slot);
      // What the probe learned may be the limit.
      if (links.humanClicks[slot]! >= limit) return 'refused';
    }
    const asking = this.reserve(id, limit, links.humanClicks[slot]!);
    if (!this.reachable) this.probeWith(asking);
    let used: number | null;
    try {
      used = await asking;
    } catch (err) {
      this.failed(err);
      return links.findId(id) !== slot ? 'gone' : decideLocally(links, slot);
    }
    this.answered();
    if (links.findId(id) !== slot) return 'gone';
    if (used === null) {
      // The shared count is at the limit: so is the true one, and the node knows it now.
      raiseHumanClicks(links, slot, limit);
      return 'refused';
    }
    // `used` counts this click (it is above what this node counted when asking). Not `+ 1` on
    // the node's count: answers arrive in any order, and one read earlier may have raised it
    // past this click already.
    raiseHumanClicks(links, slot, used);
    return 'admitted';
  }

  /** Makes `asking` the probe until it settles. */
  private probeWith(asking: Promise<unknown>): void {
    const probe = asking.then(
      () => true,
      () => false,
    );
    this.probe = probe;
    void probe.then(() => {
      if (this.probe === probe) this.probe = null;
    });
  }

  /** The store's answer, or a rejection when none comes within the timeout. */
  private reserve(id: string, limit: number, counted: number): Promise<number | null> {
    const { promise, resolve, reject } = Promise.withResolvers<number | null>();
    const timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    const ask = () => this.store.reserve(id, limit, counted);
    // A pooled connection the server closed (a restart) fails at its next use only, at once: one
    // more try takes another, so the first click after an outage is not decided alone for that.
    ask()
      .catch((err) => (storageFailure(err) === null ? Promise.reject(err) : ask()))
      .then(resolve, reject)
      .finally(() => clearTimeout(timer));
    return promise;
  }

  private answered(): void {
    if (this.reachable) return;
    this.reachable = true;
    this.log.info('click limits: the shared count answers again; limits are exact across nodes');
  }

  private failed(err: unknown): void {
    if (!this.reachable) return;
    this.reachable = false;
    this.log.error('click limits: the shared count cannot be reached; each node decides from its own count', err);
  }
}

/** The node's own decision, exact for this node alone (its count never passes the true one). */
function decideLocally(links: LinkTable, slot: number): Admission {
  // The limit as it is now: a refresh meanwhile may have changed or removed it (NaN: none).
  if (links.humanClicks[slot]! >= links.clickLimit[slot]!) return 'refused';
  countCaptured(links, slot, false);
  return 'admitted';
}

/** The gate for this storage: the shared count when there is one, else the process's own. */
export function createClickLimitGate(store: ClickLimitStore | null, log: Logger): ClickLimitGate {
  return store === null ? localGate : new SharedClickLimitGate(store, log);
}
