/**
 * The thread that checks passwords: argon2id, about 120 ms of a core per check, at the lowest CPU
 * priority (nice 19). The event loop that answers redirects, the click writer and everything
 * else on the machine come first; sign-ins get the CPU they leave (sessions/verifier.ts).
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { serve } from '../../lib/worker-rpc';

/** The niceness of the verifying threads (19: the lowest priority there is). */
export const VERIFY_NICENESS = 19;

/**
 * On Linux a thread has a niceness of its own: setpriority on the thread's id (read from
 * /proc/thread-self) changes this thread alone. Anywhere else the check runs at the normal
 * priority, still bounded by the verification slots.
 */
function lowerPriority(): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    setPriority(tid, VERIFY_NICENESS);
    return tid;
  } catch {
    return null;
  }
}

const tid = lowerPriority();

const handlers = {
  verify: ({ password, hash }: { password: string; hash: string }): boolean => Bun.password.verifySync(password, hash),
  /** The thread's id when its priority was lowered, else null (for the tests). */
  thread: (): number | null => tid,
};
export type VerifyHandlers = typeof handlers;

serve(handlers);
