/** Account passwords: argon2id through Bun.password (salted, memory-hard). */
export const MIN_PASSWORD_LENGTH = 8;
/** Bounded so that nobody can make the server hash megabytes. */
export const MAX_PASSWORD_LENGTH = 1024;

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: 'argon2id' });
}

/** Checks a password against a stored hash (~120 ms of a core: callers go through SignInThrottle.run). */
export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return Bun.password.verify(password, hash);
}
