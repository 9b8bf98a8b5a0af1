/**
 * Account passwords: argon2id through Bun.password (salted, memory-hard). They are checked on
 * low-priority Workers under the sign-in throttle (sessions/verifier.ts), never on the event loop.
 */
export const MIN_PASSWORD_LENGTH = 8;
/** Bounded so that nobody can make the server hash megabytes. */
export const MAX_PASSWORD_LENGTH = 1024;

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: 'argon2id' });
}
