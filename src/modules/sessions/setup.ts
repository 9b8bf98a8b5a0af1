/**
 * First-run setup: while no account exists, the server logs `<app host>/app/setup?token=...`
 * at every start (a new token each time, kept only in memory); the person who can read the log
 * creates the first superuser with it and is signed in. Once any account exists it is refused.
 */
import type { BaseDeps, Deps } from '../../deps';
import { AppError } from '../../lib/errors';
import { digestsEqual, sha256Hex } from '../../lib/hash';
import { hasAccounts, insertAccount, prepareAccount } from '../auth/accounts';
import { type NewSession, startSession } from './service';

interface SetupInput {
  token: string;
  email: string;
  password: string;
  userAgent: string | null;
}

const setupDone = () => new AppError('setup_done', 'Setup is done: an account exists already; sign in');

export function setupNeeded(deps: BaseDeps): boolean {
  return !hasAccounts(deps);
}

/** The address the server logs at start while setup is needed, else null. */
export function setupAddress(deps: Deps): string | null {
  return setupNeeded(deps) ? `${deps.config.appHost}/app/setup?token=${deps.setupToken}` : null;
}

/** Creates the first superuser and signs them in. */
export async function completeSetup(deps: Deps, input: SetupInput): Promise<NewSession> {
  if (!setupNeeded(deps)) throw setupDone();
  // Digests of equal length, compared in constant time: the token is a secret.
  if (!digestsEqual(sha256Hex(input.token), sha256Hex(deps.setupToken))) {
    throw new AppError('setup_token_invalid', 'The setup token is not valid: use the address in the server log');
  }
  const row = await prepareAccount(deps, { email: input.email, password: input.password, superuser: true });
  // Checked again after the hash (the only await): two setups at once make one superuser, not two.
  if (!setupNeeded(deps)) throw setupDone();
  return startSession(deps, insertAccount(deps, row), input.userAgent);
}
