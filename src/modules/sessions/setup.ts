/**
 * First-run setup: while no account exists, the server logs `<app host>/app/setup?token=...`
 * at every start (a new token each time, kept only in memory); the person who can read the log
 * creates the first superuser with it and is signed in. Once any account exists it is refused.
 */
import type { BaseDeps, Deps } from '../../deps';
import { AppError } from '../../lib/errors';
import { digestsEqual, sha256Hex } from '../../lib/hash';
import { hasAccounts, prepareAccount } from '../auth/accounts';
import { type NewSession, startSession } from './service';

interface SetupInput {
  token: string;
  email: string;
  password: string;
  userAgent: string | null;
}

const setupDone = () => new AppError('setup_done', 'Setup is done: an account exists already; sign in');

export async function setupNeeded(deps: BaseDeps): Promise<boolean> {
  return !(await hasAccounts(deps));
}

/** The address the server logs at start while setup is needed, else null. */
export async function setupAddress(deps: Deps): Promise<string | null> {
  return (await setupNeeded(deps)) ? `${deps.config.appHost}/app/setup?token=${deps.setupToken}` : null;
}

/** Creates the first superuser and signs them in. */
export async function completeSetup(deps: Deps, input: SetupInput): Promise<NewSession> {
  if (!(await setupNeeded(deps))) throw setupDone();
  // Digests of equal length, compared in constant time: the token is a secret.
  if (!digestsEqual(sha256Hex(input.token), sha256Hex(deps.setupToken))) {
    throw new AppError('setup_token_invalid', 'The setup token is not valid: use the address in the server log');
  }
  const row = await prepareAccount(deps, { email: input.email, password: input.password, superuser: true });
  // Written only while still no account exists, in one transaction: two setups at once make one
  // superuser, not two.
  if (!(await deps.stores.accounts.insertFirst(row))) throw setupDone();
  return startSession(deps, row, input.userAgent);
}
