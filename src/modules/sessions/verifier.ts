/**
 * Password checks off the event loop and below it: one Worker per verification slot
 * (sessions/throttle.ts), each checking one password at a time at the lowest CPU priority
 * (verify-worker.ts). On two cores, argon2id checks at normal priority left redirects waiting for
 * a core (a bare server's p99 up to 65-94 ms beside them); at the lowest priority the checks take
 * only what the redirects leave (p99 2 ms): docs/decisions/2026-11-26-password-checks-low-priority.md.
 * The Workers start at the first check and are replaced if one dies.
 */

import { VerificationUnavailableError } from '../../lib/errors';
import type { Logger } from '../../lib/log';
import { workerEntry } from '../../lib/worker-entry';
import { WorkerClient } from '../../lib/worker-rpc';
import { RETRY_AFTER_S } from './verification-slots';
import type { VerifyHandlers } from './verify-worker';

type VerifyWorker = WorkerClient<VerifyHandlers>;

export class PasswordVerifier {
  private readonly workers: (VerifyWorker | null)[];
  private readonly running: number[];

  constructor(
    slots: number,
    private readonly log: Logger,
  ) {
    this.workers = Array.from({ length: slots }, () => null);
    this.running = Array.from({ length: slots }, () => 0);
  }

  /**
   * Whether `password` matches the argon2id `hash`. A check its Worker could not answer (ended by
   * close() at a stop, or lost) decided nothing: VerificationUnavailableError, which the caller
   * answers 503 with Retry-After, never as a server fault.
   */
  async verify(password: string, hash: string): Promise<boolean> {
    // The throttle lets no more checks run at once than there are Workers: one is idle.
    const i = this.running.indexOf(Math.min(...this.running));
    const worker = this.started(i);
    this.running[i]!++;
    try {
      return await worker.call('verify', { password, hash });
    } catch (err) {
      this.log.error(`a password check was not answered: ${(err as Error).message}`);
      throw new VerificationUnavailableError(
        `The password could not be checked now: retry in ${RETRY_AFTER_S} s`,
        RETRY_AFTER_S,
      );
    } finally {
      this.running[i]!--;
    }
  }

  /** Ends the Workers (the next check starts them again). */
  close(): void {
    for (let i = 0; i < this.workers.length; i++) {
      this.workers[i]?.close(new Error('the password verifier was closed'));
      this.workers[i] = null;
    }
  }

  private started(i: number): VerifyWorker {
    const running = this.workers[i];
    if (running) return running;
    const thread = new Worker(workerEntry('modules/sessions/verify-worker.ts'), { smol: true });
    // Never what keeps the process alive: the server and the tests end it with close().
    thread.unref();
    const worker: VerifyWorker = new WorkerClient<VerifyHandlers>(thread, 'the password verifier', (error) => {
      this.log.error(error.message);
      if (this.workers[i] === worker) this.workers[i] = null;
    });
    this.workers[i] = worker;
    return worker;
  }
}
