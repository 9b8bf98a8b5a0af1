/**
 * The verification slots every password check of the process goes through: sign-in and the
 * passwords of protected links alike, so a flood of one can never add CPU beyond what the slots
 * allow, and neither starves the redirects (throttle.ts explains the numbers). At most
 * `verifying` checks run at once (one per PasswordVerifier Worker).
 *
 * Sign-in and link passwords each have `waiting` places of their own in the queue, and when a
 * slot frees they take turns: guesses at protected links from any number of addresses can fill
 * only their own places, so a sign-in always finds a place and waits behind at most one link
 * check per sign-in ahead of it (and the other way round). A check beyond its kind's places is
 * refused at once, costing nothing; one still waiting after `waitMs` gives its place up and is
 * refused too: at the lowest CPU priority on a busy machine a check can take seconds, and an
 * answer must come long before the server's idle timeout cuts the connection.
 */

/** Seconds a check refused after waiting, or lost with its thread, is told to wait before asking again. */
export const RETRY_AFTER_S = 5;

export interface SlotLimits {
  /** Checks running at once: one per verifier Worker. */
  verifying: number;
  /** Checks of each kind that may wait for a slot; beyond them a check is refused. */
  waiting: number;
  /** How long a check may wait for a slot before it is refused (ms). */
  waitMs: number;
}

/** Who asks for a check: each has its own waiting places and its turn at the slots. */
export type SlotKind = 'signIn' | 'link';

/** Why a check was refused without running: every place of its kind taken, or no slot within `waitMs`. */
export type SlotRefusal = 'full' | 'timedOut';

interface Waiter {
  start(): void;
}

export class VerificationSlots {
  private verifying = 0;
  private readonly queues: Record<SlotKind, Waiter[]> = { signIn: [], link: [] };
  /** Whose waiter gets the next free slot when both kinds wait. */
  private turn: SlotKind = 'signIn';

  constructor(readonly limits: SlotLimits) {}

  /** Checks of `kind` waiting for a slot now. */
  waitingOf(kind: SlotKind): number {
    return this.queues[kind].length;
  }

  /**
   * Runs `verify` in a slot, waiting in `kind`'s short queue; when every slot and waiting place
   * of the kind is taken, or no slot frees within `waitMs`, throws what `refused` makes (nothing runs).
   */
  async run<T>(kind: SlotKind, verify: () => Promise<T>, refused: (why: SlotRefusal) => Error): Promise<T> {
    if (this.verifying < this.limits.verifying) this.verifying++;
    else await this.wait(kind, refused);
    try {
      return await verify();
    } finally {
      this.release();
    }
  }

  private wait(kind: SlotKind, refused: (why: SlotRefusal) => Error): Promise<void> {
    const queue = this.queues[kind];
    if (queue.length >= this.limits.waiting) return Promise.reject(refused('full'));
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        // Still in the queue (a waiter given the slot has left it): it gives its place up.
        const at = queue.indexOf(waiter);
        if (at < 0) return;
        queue.splice(at, 1);
        reject(refused('timedOut'));
      }, this.limits.waitMs);
      queue.push(waiter);
    });
  }

  /** The slot passes straight to the next waiter, so the count of running checks never exceeds the limit. */
  private release(): void {
    const first = this.turn;
    const second: SlotKind = first === 'signIn' ? 'link' : 'signIn';
    const from = this.queues[first].length > 0 ? first : second;
    const next = this.queues[from].shift();
    if (!next) {
      this.verifying--;
      return;
    }
    // The other kind goes first next time.
    this.turn = from === 'signIn' ? 'link' : 'signIn';
    next.start();
  }
}
