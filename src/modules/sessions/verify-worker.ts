/**
 * The thread that checks passwords: argon2id, about 120 ms of a core per check, at the lowest CPU
 * priority (nice 19). The event loop that answers redirects, the click writer and everything
 * else on the machine come first; sign-ins get the CPU they leave (sessions/verifier.ts).
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { serve } from '../../lib/worker-rpc';

/** The niceness of the verifying threads (19: the lowest priority there is). */
const VERIFY_NICENESS = 19;

/**
 * On Linux a thread has a niceness of its own: setpriority on the thread's id (read from
 * /proc/thread-self) changes this thread alone. Anywhere else the check runs at the normal
 * priority, still bounded by the verification slots.
 */
function lowerPriority(): void {
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), VERIFY_NICENESS);
  } catch {
    // Not Linux, or no /proc: the normal priority.
  }
}

lowerPriority();

const handlers = {
  verify: ({ password, hash }: { password: string; hash: string }): boolean => Bun.password.verifySync(password, hash),
};
export type VerifyHandlers = typeof handlers;

serve(handlers);
