/**
 * First-run setup: while no account exists, the server logs `<app host>/app/setup?token=...`
 * at every start (a new token each time, kept only in memory); the person who can read the log
 * creates the first superuser with it and is signed in. Once any account exists it is refused.
 *
 * Several nodes on one database each log their own token, and any node accepts any of them: the
 * database keeps the SHA-256 of each (setup_tokens), stored when the node logs it and deleted
 * when the node stops; all of them go once the first account exists. With one process (SQLite)
 * nothing is stored: its token in memory is the only one.
 */

import { AppError } from '../../lib/errors';
import { digestsEqual, sha256Hex } from '../../lib/hash';
import { hasAccounts, prepareAccount } from '../auth/public';
import type { SessionsBase, SessionsDeps } from './deps';
import { type NewSession, startSession } from './service';

interface SetupInput {
  token: string;
  email: string;
  password: string;
  userAgent: string | null;
}

const setupDone = () => new AppError('setup_done', 'Setup is done: an account exists already; sign in');

/** The nodes whose token is stored (so that their stop deletes it). */
const stored = new WeakSet<SessionsDeps>();

export async function setupNeeded(deps: SessionsBase): Promise<boolean> {
  return !(await hasAccounts(deps));
}

/**
 * The address the server logs at start while setup is needed, else null. Its token works on
 * every node from then on; once setup is done, the tokens other nodes stored are deleted.
 */
export async function setupAddress(deps: SessionsDeps): Promise<string | null> {
  if (!(await setupNeeded(deps))) {
    await endSetup(deps);
    return null;
  }
  await deps.stores.setupTokens.add(sha256Hex(deps.setupToken), deps.clock.now());
  stored.add(deps);
  return `${deps.config.appHost}/app/setup?token=${deps.setupToken}`;
}

/** This node stops: its token stops working on every node. */
export async function withdrawSetupToken(deps: SessionsDeps): Promise<void> {
  if (!stored.delete(deps)) return;
  await deps.stores.setupTokens.delete(sha256Hex(deps.setupToken));
}

/** An account exists: no node's setup token may be used any more (`slink user add` calls it too). */
export async function endSetup(deps: SessionsBase): Promise<void> {
  await deps.stores.setupTokens.deleteAll();
}

/** This node's own token, or one another node logged and stored. */
async function tokenAccepted(deps: SessionsDeps, token: string): Promise<boolean> {
  const hash = sha256Hex(token);
  // Digests of equal length, compared in constant time: the token is a secret.
  if (digestsEqual(hash, sha256Hex(deps.setupToken))) return true;
  // Another node's is found by its hash, as sessions are: only hashes are stored.
  return deps.stores.setupTokens.has(hash);
}

/** Creates the first superuser and signs them in. */
export async function completeSetup(deps: SessionsDeps, input: SetupInput): Promise<NewSession> {
  if (!(await setupNeeded(deps))) throw setupDone();
  if (!(await tokenAccepted(deps, input.token))) {
    throw new AppError('setup_token_invalid', 'The setup token is not valid: use the address in the server log');
  }
  const row = await prepareAccount(deps, { email: input.email, password: input.password, superuser: true });
  // Written only while still no account exists, in one transaction: two setups at once make one
  // superuser, not two.
  if (!(await deps.stores.accounts.insertFirst(row))) throw setupDone();
  // Not worth failing the setup over: a token is never looked at once an account exists, and
  // the next start deletes what is left.
  await endSetup(deps).catch(() => {});
  return startSession(deps, row, input.userAgent);
}
