/**
 * What operators and superusers do to accounts: list them, set a password, disable and enable.
 * Each change that takes access away ends the account's dashboard sessions at once; disabling
 * also revokes its API keys.
 */

import { AppError, invalid } from '../../lib/errors';
import { checkPassword, getAccountByEmailOrThrow, getAccountOrThrow, isAdmin } from './accounts';
import type { AuthDeps } from './deps';
import { hashPassword } from './passwords';
import type { AccountRow } from './store';

/** Every account, oldest first (for `slink user list` and the dashboard's accounts page). */
export function listAccounts(deps: AuthDeps): Promise<AccountRow[]> {
  return deps.stores.accounts.list();
}

/** Sets a new password and ends every session of the account: whoever knew the old one must sign in again. */
export async function setPassword(deps: AuthDeps, email: string, password: string): Promise<AccountRow> {
  const account = await getAccountByEmailOrThrow(deps, email);
  checkPassword(password);
  const passwordHash = await hashPassword(password);
  // The sessions end in the same transaction.
  await deps.stores.accounts.setPassword(account.id, passwordHash);
  return { ...account, passwordHash };
}

export function requireSuperuser(account: AccountRow): void {
  if (!isAdmin(account)) throw new AppError('superuser_required', 'Only a superuser may manage accounts');
}

/**
 * Disables or enables an account. Disabling ends its sessions and revokes its API keys, in one
 * transaction: enabling it again gives back sign-in, never the keys, which may have leaked with
 * whatever got the account disabled (the dashboard says so before disabling). A superuser
 * cannot disable their own account: the last superuser could otherwise lock everyone out of the
 * dashboard.
 */
export async function setAccountDisabled(
  deps: AuthDeps,
  actor: AccountRow,
  id: string,
  disabled: boolean,
): Promise<AccountRow> {
  requireSuperuser(actor);
  const account = await getAccountOrThrow(deps, id);
  if (disabled && account.id === actor.id) throw invalid('disabled', 'You cannot disable your own account');
  if (disabled === (account.disabledAt !== null)) return account;
  const disabledAt = disabled ? deps.clock.now() : null;
  await deps.stores.accounts.setDisabled(id, disabledAt);
  return { ...account, disabledAt };
}
