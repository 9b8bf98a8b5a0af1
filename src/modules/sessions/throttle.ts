/**
 * Sign-in throttling, so that guessing passwords is slow and sign-in can never starve redirects.
 *
 * Failures are counted in fixed 15-minute windows that start at the first failure:
 * - 5 per email, counted whether or not an account has that email, so a refusal says nothing
 *   about which emails exist (and a person who mistyped five times waits at most 15 minutes);
 * - 20 per client address (an IPv6 one by its /64), against one address trying many emails (an office behind one NAT
 *   address still gets four people's worth of typos).
 * Both are checked before any password is verified, and an attempt counts as a failure from the
 * moment it starts (a success takes it back), so concurrent attempts cannot overshoot a limit.
 * The address is known before the body is read: the HTTP edge asks `refusal` first, so a flood
 * from a throttled address costs no body parsing, no validation and no database read.
 * One process (SQLite) counts in its own memory, exactly. Several nodes on one PostgreSQL
 * database count failures in the database (throttle-shared.ts; the stores choose, stores.ts
 * `openSignInThrottle`); the verification slots below stay each node's own, as its cores are.
 *
 * argon2id verification costs ~120 ms of a core and runs on a Worker at the lowest CPU priority
 * (verifier.ts): at most `verificationSlots(cores)` run at once (half the cores, at least one: one
 * on a 2-core box), at most 8 more sign-ins wait for a slot, and anything beyond is answered 429
 * at once; a sign-in still waiting after 10 s is answered 503 (it waited, so it is not the
 * sender's fault). The slots are the process's, shared with the passwords of protected links,
 * which have waiting places of their own and take turns with sign-in (verification-slots.ts).
 * Two verifications at once on two cores, at normal priority, left the event loop and so the
 * redirects waiting for a core (docs/performance.md, "Sign-in flood").
 */
import { throttleKeyOf } from '../../lib/address';
import type { Clock } from '../../lib/clock';
import { RateLimitedError, VerificationUnavailableError } from '../../lib/errors';
import type { SignInFailureStore } from './store';
import { SharedFailureCounts, type SignInAttempt } from './throttle-shared';

export type { SignInAttempt };

import { RETRY_AFTER_S, VerificationSlots } from './verification-slots';

/** Password verifications at once on a machine of `cores` cores: half of them, at least one. */
export function verificationSlots(cores: number): number {
  return Math.max(1, Math.floor(cores / 2));
}

/** The limits for a machine of `cores` cores (this one's by default). */
export function signInLimits(cores = navigator.hardwareConcurrency) {
  return {
    windowMs: 15 * 60_000,
    perEmail: 5,
    perAddress: 20,
    verifying: verificationSlots(cores),
    waiting: 8,
    /** How long a check may wait for a slot: an answer well within the server's idle timeout (30 s). */
    waitMs: 10_000,
  };
}

export const SIGN_IN_LIMITS = signInLimits();

type SignInLimits = typeof SIGN_IN_LIMITS;

/** Failure counts per key in fixed windows (kept in memory only, like the API rate limiter's). */
export class FailureWindows {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Seconds until `key` may try again; 0 when it may now. */
  wait(key: string, now: number): number {
    const w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs || w.count < this.limit) return 0;
    return Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
  }

  add(key: string, now: number): void {
    const w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) this.windows.set(key, { start: now, count: 1 });
    else w.count++;
  }

  remove(key: string): void {
    const w = this.windows.get(key);
    if (w && --w.count <= 0) this.windows.delete(key);
  }

  clear(key: string): void {
    this.windows.delete(key);
  }

  /** Memory stays bounded by the keys that failed in the last window. */
  sweep(now: number): void {
    for (const [key, w] of this.windows) if (now - w.start >= this.windowMs) this.windows.delete(key);
  }
}

/** What the throttle has done since the start (plain numbers, read by the metrics when scraped). */
export interface SignInStats {
  /** Password verifications run (each one argon2id). */
  verified: number;
  /** Attempts refused for too many failures of their email or address (429, nothing verified). */
  throttled: number;
  /**
   * Attempts refused for load, nothing verified: every slot and waiting place taken (429), or no
   * slot within the wait (503).
   */
  busy: number;
}

const SWEEP_EVERY = 256;

const emailKeyOf = (email: string) => email.trim().toLowerCase();
// As every throttle counts addresses (lib/address.ts): an IPv6 client per /64.
const addressKeyOf = throttleKeyOf;

export class SignInThrottle {
  private readonly emails: FailureWindows;
  private readonly addresses: FailureWindows;
  private attempts = 0;
  /** The process's verification slots (shared with link passwords: verification-slots.ts). */
  readonly slots: VerificationSlots;
  /** Failures counted in the database every node shares, or null: counted here, in memory. */
  private readonly shared: SharedFailureCounts | null;
  readonly stats: SignInStats = { verified: 0, throttled: 0, busy: 0 };

  constructor(
    private readonly clock: Clock,
    readonly limits: SignInLimits = SIGN_IN_LIMITS,
    shared: SignInFailureStore | null = null,
    slots: VerificationSlots = new VerificationSlots({ ...limits }),
  ) {
    this.slots = slots;
    this.emails = new FailureWindows(limits.perEmail, limits.windowMs);
    this.addresses = new FailureWindows(limits.perAddress, limits.windowMs);
    this.shared = shared && new SharedFailureCounts(shared, limits);
  }

  /**
   * Why an attempt of this email (null: not known yet, the body unread) from this address would
   * be refused now, or null. Counted as a refusal when it is one. Never reads the database.
   */
  refusal(email: string | null, address: string | null): RateLimitedError | null {
    const now = this.clock.now();
    const emailKey = email === null ? null : emailKeyOf(email);
    const addressKey = addressKeyOf(address);
    const wait = this.shared
      ? this.shared.wait(emailKey, addressKey, now)
      : Math.max(emailKey === null ? 0 : this.emails.wait(emailKey, now), this.addresses.wait(addressKey, now));
    return wait === 0 ? null : this.refused(wait);
  }

  private refused(wait: number): RateLimitedError {
    this.stats.throttled++;
    return new RateLimitedError(`Too many failed sign-ins: retry in ${wait} s`, wait);
  }

  /**
   * Starts an attempt, counted as a failure until it succeeds; throws RateLimitedError over a
   * limit. Where the counts are, in memory or in the database every node shares.
   */
  async start(email: string, address: string | null): Promise<SignInAttempt> {
    if (this.shared === null) return this.begin(email, address);
    const refused = this.refusal(email, address);
    if (refused !== null) throw refused;
    const started = await this.shared.start(emailKeyOf(email), addressKeyOf(address), this.clock.now());
    if (typeof started === 'number') throw this.refused(Math.max(1, started));
    return started;
  }

  /** `start` in memory: synchronous, so the check and the count are one step of the event loop. */
  begin(email: string, address: string | null): SignInAttempt {
    const now = this.clock.now();
    if (++this.attempts % SWEEP_EVERY === 0) {
      this.emails.sweep(now);
      this.addresses.sweep(now);
    }
    const refused = this.refusal(email, address);
    if (refused !== null) throw refused;
    const emailKey = emailKeyOf(email);
    const addressKey = addressKeyOf(address);
    this.emails.add(emailKey, now);
    this.addresses.add(addressKey, now);
    // async only for the shape they share with the database's attempts: the work is done at the call.
    return {
      succeeded: async () => {
        this.emails.clear(emailKey);
        this.addresses.remove(addressKey);
      },
      cancelled: async () => {
        this.emails.remove(emailKey);
        this.addresses.remove(addressKey);
      },
    };
  }

  /**
   * Runs `verify` in one of the slots, waiting in sign-in's short queue; beyond it throws
   * RateLimitedError, and VerificationUnavailableError when no slot frees in time.
   */
  run<T>(verify: () => Promise<T>): Promise<T> {
    return this.slots.run(
      'signIn',
      () => {
        this.stats.verified++;
        return verify();
      },
      (why) => {
        this.stats.busy++;
        return why === 'full'
          ? new RateLimitedError('Too many sign-ins at once: retry in a second', 1)
          : new VerificationUnavailableError(
              `The server is too busy to check the password now: retry in ${RETRY_AFTER_S} s`,
              RETRY_AFTER_S,
            );
      },
    );
  }
}
