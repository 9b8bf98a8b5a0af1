/**
 * The API rate limit of several nodes on one database: every hit is counted in the database, one
 * statement per request (rate-limit-postgres.ts), so SLINK_RATE_LIMIT holds per key whichever
 * node a request reaches, with the same fixed windows as in memory (60 s from a window's first
 * hit) and honest X-RateLimit-Remaining and Retry-After.
 *
 * - An identity the database refused is refused here until its window ends, without asking again:
 *   nothing can get through before then, and a flood of refused requests costs the database nothing.
 * - While the database cannot be reached, each node counts in its own memory (the limit then holds
 *   per node), so the limiter never turns a request into an error: the request is answered as it
 *   would be without a database. The switch both ways is logged once.
 * - Finished windows are pruned by each node about once a window, in the background; two nodes
 *   pruning at once delete the same rows, which is harmless.
 */

import type { Clock } from '../lib/clock';
import { describeError } from '../lib/errors';
import type { Logger } from '../lib/log';
import { type RateDecision, type RateLimit, RateLimiter, secondsLeft, WINDOW_MS } from './rate-limit';

/** The windows where every node counts (the engine's side of the shared limiter). */
export interface RateWindowStore {
  /**
   * Counts one hit of `identity` in its current window, or in a new one starting at `now` when
   * the last ended `windowMs` after its start; answers that window's start and its hits, this
   * one included. Exact under concurrency across connections and nodes.
   */
  hit(identity: string, now: number, windowMs: number): Promise<{ start: number; hits: number }>;
  /** Deletes the windows that ended by `now`. */
  prune(now: number, windowMs: number): Promise<void>;
}

export class SharedRateLimiter implements RateLimit {
  /** Counts while the database cannot be reached. */
  private readonly memory: RateLimiter;
  /** Identity -> when its refused window ends. */
  private readonly refused = new Map<string, number>();
  private nextPrune = 0;
  private inMemory = false;

  constructor(
    private readonly store: RateWindowStore,
    private readonly limit: number,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {
    this.memory = new RateLimiter(limit, clock);
  }

  async hit(identity: string): Promise<RateDecision> {
    const now = this.clock.now();
    if (now >= this.nextPrune) this.prune(now);
    const until = this.refused.get(identity);
    if (until !== undefined && now < until) return this.refusal(until, now);
    let window: { start: number; hits: number };
    try {
      window = await this.store.hit(identity, now, WINDOW_MS);
    } catch (err) {
      if (!this.inMemory) {
        this.inMemory = true;
        this.log.error(
          `rate limit: the database cannot count (${describeError(err)}); counting in this node's memory until it can`,
        );
      }
      return this.memory.hit(identity);
    }
    if (this.inMemory) {
      this.inMemory = false;
      this.log.info('rate limit: counting in the database again');
    }
    if (window.hits > this.limit) {
      const end = window.start + WINDOW_MS;
      this.refused.set(identity, end);
      return this.refusal(end, now);
    }
    return {
      allowed: true,
      limit: this.limit,
      remaining: this.limit - window.hits,
      retryAfter: Math.min(secondsLeft(window.start, now), WINDOW_MS / 1000),
    };
  }

  private refusal(end: number, now: number): RateDecision {
    // Another node's clock a little ahead may have started the window: never more than a window.
    const retryAfter = Math.min(secondsLeft(end - WINDOW_MS, now), WINDOW_MS / 1000);
    return { allowed: false, limit: this.limit, remaining: 0, retryAfter };
  }

  /** Forgets refusals that ended and deletes the database's finished windows (not awaited). */
  private prune(now: number): void {
    this.nextPrune = now + WINDOW_MS;
    for (const [identity, until] of this.refused) if (until <= now) this.refused.delete(identity);
    // A failed prune is retried a window later; the windows it missed are only rows.
    this.store.prune(now, WINDOW_MS).catch(() => {});
  }
}
