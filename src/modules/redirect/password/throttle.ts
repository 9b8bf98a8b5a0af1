/**
 * Wrong passwords of protected links: more than LINK_PASSWORD_LIMIT wrong answers for one link
 * from one address (an IPv6 one by its /64) within 15 minutes answer 429, the right password too while refused
 * (docs/behaviour.md, "Password-protected links"). Each attempt counts as a failure from the
 * moment it starts and a right one takes it back, so attempts in flight cannot overshoot; the
 * refusal is decided before any verification is spent.
 *
 * One process (SQLite) counts in memory, like sign-in. Nodes on one PostgreSQL database count
 * in the windows they share with sign-in failures (sessions' SignInFailureStore: keys stored
 * only as HMACs, never a raw address), and each node remembers a key it knows to be at its
 * limit, so a flood of refused guesses costs the database nothing.
 */
import { throttleKeyOf } from '../../../lib/address';
import type { Clock } from '../../../lib/clock';
import { type FailureWindow, FailureWindows, type SignInFailureStore } from '../../sessions/public';

export const LINK_PASSWORD_LIMIT = 10;
export const LINK_PASSWORD_WINDOW_MS = 15 * 60_000;
const SWEEP_EVERY = 256;

export interface PasswordAttempt {
  /** The password was right: this attempt and the key's failures are forgotten. */
  succeeded(): Promise<void>;
  /** Nothing was verified (the slots were full): the attempt does not count. */
  cancelled(): Promise<void>;
}

// Per address as the throttles count them (lib/address.ts): an IPv6 client per /64.
const keyOf = (linkId: string, address: string | null) => `link-password:${linkId}:${throttleKeyOf(address)}`;

export class LinkPasswordThrottle {
  private readonly memory = new FailureWindows(LINK_PASSWORD_LIMIT, LINK_PASSWORD_WINDOW_MS);
  /** Shared counts: key -> when its refused window ends (this node's clock). */
  private readonly refusedUntil = new Map<string, number>();
  private attempts = 0;
  private nextPrune = 0;

  constructor(
    private readonly clock: Clock,
    private readonly shared: SignInFailureStore | null,
  ) {}

  /** Seconds until this address may try this link's password again; 0 when it may now. Never reads the database. */
  wait(linkId: string, address: string | null): number {
    const key = keyOf(linkId, address);
    const now = this.clock.now();
    if (this.shared === null) return this.memory.wait(key, now);
    const until = this.refusedUntil.get(key);
    return until === undefined || until <= now ? 0 : Math.max(1, Math.ceil((until - now) / 1000));
  }

  /** Counts an attempt as a failure until it succeeds, or answers the seconds to wait (nothing counted). */
  async start(linkId: string, address: string | null): Promise<PasswordAttempt | number> {
    const wait = this.wait(linkId, address);
    if (wait > 0) return wait;
    const key = keyOf(linkId, address);
    const now = this.clock.now();
    const shared = this.shared;
    if (shared === null) return this.inMemory(key, now);
    if (now >= this.nextPrune) this.prune(shared, now);
    let counted: boolean;
    let windows: FailureWindow[];
    try {
      ({ counted, windows } = await shared.count([{ key, limit: LINK_PASSWORD_LIMIT }], now, LINK_PASSWORD_WINDOW_MS));
    } catch {
      // The database out of reach: this node counts alone meanwhile (the limit then holds per
      // node), so a visitor with the right password is still let through rather than failed.
      return this.inMemory(key, now);
    }
    const window = windows[0]!;
    if (window.failures >= LINK_PASSWORD_LIMIT) this.refusedUntil.set(key, window.start + LINK_PASSWORD_WINDOW_MS);
    if (!counted) return Math.max(1, this.wait(linkId, address));
    // A failure that cannot be taken back (the database out of reach) stays counted: the safe side.
    return {
      succeeded: async () => {
        this.refusedUntil.delete(key);
        await shared.forget(key).catch(() => {});
      },
      cancelled: async () => {
        this.refusedUntil.delete(key);
        await shared.takeBack(key, window.start).catch(() => {});
      },
    };
  }

  private inMemory(key: string, now: number): PasswordAttempt | number {
    const wait = this.memory.wait(key, now);
    if (wait > 0) return wait;
    if (++this.attempts % SWEEP_EVERY === 0) this.memory.sweep(now);
    this.memory.add(key, now);
    return {
      succeeded: async () => this.memory.clear(key),
      cancelled: async () => this.memory.remove(key),
    };
  }

  /** Forgets refusals that ended; deletes the shared windows that ended, about once a minute (not awaited). */
  private prune(shared: SignInFailureStore, now: number): void {
    this.nextPrune = now + 60_000;
    for (const [key, until] of this.refusedUntil) if (until <= now) this.refusedUntil.delete(key);
    shared.prune(now, LINK_PASSWORD_WINDOW_MS).catch(() => {});
  }
}
