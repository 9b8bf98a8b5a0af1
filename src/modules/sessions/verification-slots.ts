/**
 * The verification slots every password check of the process goes through: sign-in and the
 * passwords of protected links alike, so a flood of one can never add CPU beyond what the slots
 * allow, and neither starves the redirects (throttle.ts explains the numbers). At most
 * `verifying` checks run at once (one per PasswordVerifier Worker), at most `waiting` more wait
 * for a slot, and anything beyond is refused at once, costing nothing.
 */

export interface SlotLimits {
  /** Checks running at once: one per verifier Worker. */
  verifying: number;
  /** Checks that may wait for a slot; beyond them a check is refused. */
  waiting: number;
}

export class VerificationSlots {
  private verifying = 0;
  private readonly queue: (() => void)[] = [];

  constructor(readonly limits: SlotLimits) {}

  /**
   * Runs `verify` in a slot, waiting in the short queue; when every slot and waiting place is
   * taken, throws what `busy` makes (nothing runs).
   */
  async run<T>(verify: () => Promise<T>, busy: () => Error): Promise<T> {
    if (this.verifying < this.limits.verifying) this.verifying++;
    else if (this.queue.length < this.limits.waiting) await new Promise<void>((resolve) => this.queue.push(resolve));
    else throw busy();
    try {
      return await verify();
    } finally {
      // The slot passes straight to the next waiter, so the count of running checks never exceeds the limit.
      const next = this.queue.shift();
      if (next) next();
      else this.verifying--;
    }
  }
}
