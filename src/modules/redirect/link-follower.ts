/**
 * Keeps this process's slug index current with link writes made through other nodes (several nodes
 * on one PostgreSQL), or by another process on the same SQLite file (links/changes.ts). A
 * notification (PostgreSQL) wakes it at once; a poll every
 * FOLLOW_POLL_MS finds what a lost notification did not say (the listening connection was down),
 * so a change is in every node's memory within a second of its commit while the database
 * answers. A node that fell behind further than the changes kept (or could not tell where it
 * stood at its start) reads every link again (LinkIndex.resync).
 *
 * Catching up runs one pass at a time; a wake during a pass runs one more after it.
 */

import { describeError } from '../../lib/errors';
import type { Logger } from '../../lib/log';
import { DOMAINS_CHANGED, type LinkChangeFeed } from '../links/public';
import type { LinkIndex } from './link-index';

/** How often a node asks for changes without being woken. */
export const FOLLOW_POLL_MS = 500;
/** Changes read per query while catching up (a bulk write names up to thousands of links in one). */
const PAGE = 100;
/**
 * How long changes are kept: a node cut off for longer reads every link again when it is back.
 * Every node prunes at most once per PRUNE_EVERY_MS, one at a time (HOUSEKEEPING_LOCK).
 */
export const CHANGES_KEPT_MS = 15 * 60_000;
const PRUNE_EVERY_MS = 60_000;

export class LinkFollower {
  /** The number of the last change applied; null while unknown (then every link is read again). */
  private seq: number | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private failing = false;
  private timer: ReturnType<typeof setInterval> | null = null;
  private unlisten: (() => Promise<void>) | null = null;
  /** A subscription is made or being made (`listen`). */
  private listening = false;
  private prunedAt = performance.now();
  /** When (performance.now()) a pass last started that then found every change: the index is current up to there. */
  private confirmed = performance.now();
  readonly stats = { changes: 0, links: 0, resyncs: 0 };

  constructor(
    private readonly feed: LinkChangeFeed,
    private readonly index: LinkIndex,
    private readonly log: Logger,
    /** Reads every domain again (a change named DOMAINS_CHANGED, a resync). */
    private readonly reloadDomains: () => Promise<void>,
    private readonly pollMs = FOLLOW_POLL_MS,
  ) {}

  /**
   * Where to follow from: called before the index reads every link, so a change committed
   * during that read is applied after it. Never throws: when the database does not answer, the
   * first pass that succeeds reads every link again.
   */
  async begin(): Promise<void> {
    try {
      this.seq = await this.feed.head();
    } catch (err) {
      this.log.error(`could not read where link changes stand (${describeError(err)}); every link is read again later`);
    }
  }

  /** Listens for changes and polls. */
  start(): void {
    if (this.stopped || this.timer !== null) return;
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref?.();
    this.listen();
    this.wake();
  }

  /**
   * Subscribes to the notifications. A subscription that could not be made (the database out of
   * reach just then) is tried again after the next pass that reaches the database; the poll
   * covers the meantime, so it is no error.
   */
  private listen(): void {
    this.listening = true;
    this.feed
      .listen(() => this.wake())
      .then(
        (unlisten) => {
          if (this.stopped) void unlisten();
          else this.unlisten = unlisten;
        },
        (err) => {
          this.listening = false;
          this.log.info(
            `listening for link changes failed (${describeError(err)}); they are read every ${this.pollMs} ms until it works`,
          );
        },
      );
  }

  /** Seconds since the index was last known current (the metrics). */
  get lagSeconds(): number {
    return (performance.now() - this.confirmed) / 1000;
  }

  /** Runs a pass now, or one more after the running one. */
  wake(): void {
    if (this.stopped) return;
    if (this.running !== null) {
      this.again = true;
      return;
    }
    this.running = this.pass().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** Resolves once a pass that started after this call has ended (tests). */
  async caughtUp(): Promise<void> {
    await this.running;
    this.wake();
    await this.running;
  }

  private async pass(): Promise<void> {
    const started = performance.now();
    try {
      if (this.seq === null) await this.resync();
      for (;;) {
        const { changes, gap } = await this.feed.since(this.seq!, PAGE);
        if (gap) {
          await this.resync();
          continue;
        }
        for (const change of changes) {
          if (change.ids.includes(DOMAINS_CHANGED)) {
            await this.reloadDomains();
            const links = change.ids.filter((id) => id !== DOMAINS_CHANGED);
            if (links.length > 0) await this.index.refreshMany(links);
          } else if (change.ids.length > 0) await this.index.refreshMany(change.ids);
          this.seq = change.seq;
          this.stats.changes++;
          this.stats.links += change.ids.length;
        }
        if (changes.length < PAGE) break;
      }
      this.confirmed = started;
      if (!this.listening && !this.stopped) this.listen();
      if (started - this.prunedAt >= PRUNE_EVERY_MS) {
        this.prunedAt = started;
        await this.feed.prune(CHANGES_KEPT_MS);
      }
      if (this.failing) this.log.info('following link changes again');
      this.failing = false;
    } catch (err) {
      // Logged once per outage; the poll keeps trying.
      if (!this.failing) this.log.error(`following link changes failed (${describeError(err)}); retrying`);
      this.failing = true;
    }
  }

  private async resync(): Promise<void> {
    const head = await this.feed.head();
    await this.reloadDomains();
    const links = await this.index.resync();
    this.seq = head;
    this.stats.resyncs++;
    this.log.info(`read every link again to catch up with changes (${links} links)`);
  }

  /** Stops listening and polling; waits for a pass in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    await this.unlisten?.().catch(() => {});
  }
}
