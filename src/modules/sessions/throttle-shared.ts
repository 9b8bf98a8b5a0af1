/**
 * Sign-in failures counted where every node sees them (several nodes on one PostgreSQL database):
 * the same limits and windows as in memory (throttle.ts), five wrong passwords for an email are
 * five whichever nodes they reached. Each attempt's check and count is one decision in the
 * database for its email and address together, so attempts in flight on several nodes cannot
 * overshoot a limit either.
 *
 * A flood from a throttled address must still cost no body parsing and no database read, so each
 * node remembers "refused until T" for a key once it is known to be at its limit: when the
 * database refuses an attempt, or when this node's own attempt brings a count to its limit. The
 * HTTP edge asks that memory only (`wait`). A key another node brought to its limit costs this
 * node one database read, then nothing until its window ends. A failure taken back on another
 * node (a success of an attempt in flight) leaves this node refusing until the window ends:
 * stricter, never looser, and for at most one window.
 */
import type { FailureKey, FailureWindow, SignInFailureStore } from './store';

export interface SignInAttempt {
  /** The password was right: the email's failures are forgotten, this attempt no longer counts. */
  succeeded(): Promise<void>;
  /** Nothing was verified (refused for load): the attempt does not count. */
  cancelled(): Promise<void>;
}

interface Limits {
  windowMs: number;
  perEmail: number;
  perAddress: number;
}

const emailKey = (key: string) => `email:${key}`;
const addressKey = (key: string) => `address:${key}`;

export class SharedFailureCounts {
  /** Key -> when its refused window ends (on this node's clock, as the windows are). */
  private readonly refusedUntil = new Map<string, number>();
  private nextPrune = 0;

  constructor(
    private readonly store: SignInFailureStore,
    private readonly limits: Limits,
  ) {}

  /** Seconds until an attempt of this email (null: not known yet) from this address may be counted here; 0 when it may now. */
  wait(email: string | null, address: string, now: number): number {
    const emailWait = email === null ? 0 : this.waitOf(emailKey(email), now);
    return Math.max(emailWait, this.waitOf(addressKey(address), now));
  }

  /**
   * Counts an attempt as a failure of its email and address (until it succeeds or is cancelled),
   * or answers the seconds to wait when either is at its limit (nothing counted).
   */
  async start(email: string, address: string, now: number): Promise<SignInAttempt | number> {
    if (now >= this.nextPrune) this.prune(now);
    const keys: FailureKey[] = [
      { key: emailKey(email), limit: this.limits.perEmail },
      { key: addressKey(address), limit: this.limits.perAddress },
    ];
    const { counted, windows } = await this.store.count(keys, now, this.limits.windowMs);
    // A key at its limit refuses every attempt until its window ends (unless one is taken back).
    keys.forEach(({ key, limit }, i) => {
      const w = windows[i]!;
      if (w.failures >= limit) this.refusedUntil.set(key, w.start + this.limits.windowMs);
    });
    if (!counted) return this.wait(email, address, now);
    const [emailWindow, addressWindow] = windows as [FailureWindow, FailureWindow];
    const e = keys[0]!.key;
    const a = keys[1]!.key;
    return {
      succeeded: async () => {
        this.refusedUntil.delete(e);
        this.refusedUntil.delete(a);
        await this.quietly(this.store.forget(e));
        await this.quietly(this.store.takeBack(a, addressWindow.start));
      },
      cancelled: async () => {
        this.refusedUntil.delete(e);
        this.refusedUntil.delete(a);
        await this.quietly(this.store.takeBack(e, emailWindow.start));
        await this.quietly(this.store.takeBack(a, addressWindow.start));
      },
    };
  }

  private waitOf(key: string, now: number): number {
    const until = this.refusedUntil.get(key);
    if (until === undefined || until <= now) return 0;
    return Math.max(1, Math.ceil((until - now) / 1000));
  }

  /**
   * A failure that could not be taken back (the database out of reach) stays counted until its
   * window ends: the safe side. The sign-in itself answers what the database's state allows.
   */
  private async quietly(write: Promise<void>): Promise<void> {
    await write.catch(() => {});
  }

  /** Forgets refusals that ended; deletes the database's finished windows about once a minute (not awaited). */
  private prune(now: number): void {
    this.nextPrune = now + 60_000;
    for (const [key, until] of this.refusedUntil) if (until <= now) this.refusedUntil.delete(key);
    // Two nodes pruning at once delete the same rows; a failed prune is retried a minute later.
    this.store.prune(now, this.limits.windowMs).catch(() => {});
  }
}
