/**
 * Fixed-window rate limiter, one window of 60 s per identity (an API key, or a client address
 * for requests without a valid key). JavaScript runs one request at a time between awaits and
 * `hit` never awaits, so the count is exact under any concurrency in one process (SQLite).
 * Several nodes on one PostgreSQL database count in the database instead (rate-limit-shared.ts);
 * the stores choose which (stores.ts `openRateLimiter`).
 */
import type { Clock } from '../lib/clock';
import { AppError } from '../lib/errors';
import { errorResponse } from './errors';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (for Retry-After). */
  retryAfter: number;
}

/** What the API guard asks of every /api/v1 request: one hit of the caller's identity. */
export interface RateLimit {
  hit(identity: string): RateDecision | Promise<RateDecision>;
}

/** A hit counted: the headers every answer to the request carries, and the 429 answer when over the limit. */
export interface CountedHit {
  headers: Record<string, string>;
  refused: Response | null;
}

/** Counts one request of `identity` (the API guard's and /mcp's one way of doing it). */
export async function countHit(limiter: RateLimit, identity: string): Promise<CountedHit> {
  const decision = await limiter.hit(identity);
  const headers: Record<string, string> = {
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(decision.remaining),
  };
  if (decision.allowed) return { headers, refused: null };
  const refused = errorResponse(new AppError('rate_limited', `Too many requests: retry in ${decision.retryAfter} s`), {
    ...headers,
    'retry-after': String(decision.retryAfter),
  });
  return { headers, refused };
}

interface Window {
  start: number;
  count: number;
}

export const WINDOW_MS = 60_000;
const SWEEP_EVERY = 1024;

/** Seconds until a window that started at `start` ends, rounded up, at least one (Retry-After). */
export function secondsLeft(start: number, now: number): number {
  return Math.max(1, Math.ceil((start + WINDOW_MS - now) / 1000));
}

export class RateLimiter implements RateLimit {
  private readonly windows = new Map<string, Window>();
  private hits = 0;

  constructor(
    private readonly limit: number,
    private readonly clock: Clock,
  ) {}

  hit(identity: string): RateDecision {
    const now = this.clock.now();
    if (++this.hits % SWEEP_EVERY === 0) this.sweep(now);
    let window = this.windows.get(identity);
    if (!window || now - window.start >= WINDOW_MS) {
      window = { start: now, count: 0 };
      this.windows.set(identity, window);
    }
    const retryAfter = secondsLeft(window.start, now);
    if (window.count >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, retryAfter };
    window.count++;
    return { allowed: true, limit: this.limit, remaining: this.limit - window.count, retryAfter };
  }

  /** Drops finished windows so memory stays bounded by the identities of the last minute. */
  private sweep(now: number): void {
    for (const [id, w] of this.windows) if (now - w.start >= WINDOW_MS) this.windows.delete(id);
  }
}
