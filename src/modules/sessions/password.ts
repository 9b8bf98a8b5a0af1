/** A signed-in person changes their own password: the current one is checked first, under the sign-in throttle. */

import { invalid } from '../../lib/errors';
import type { Access } from '../access/public';
import { type AccountRow, checkPassword, setPassword } from '../auth/public';
import type { SessionsDeps } from './deps';
import { checkCredentials } from './service';

interface ChangePasswordInput {
  currentPassword: string;
  newPassword: string;
  /** For the per-address failure limit (never stored). */
  address: string | null;
}

/**
 * Sets the new password and ends every session of the account, this one included. A wrong
 * current password counts as a failed sign-in of the account's email, so a stolen session
 * cannot be used to guess it faster than sign-in could.
 */
export async function changePassword(
  deps: SessionsDeps,
  account: AccountRow,
  input: ChangePasswordInput,
  /** Who changes it, for the audit log: the person, through the dashboard. */
  actor: Access,
): Promise<void> {
  checkPassword(input.newPassword, 'newPassword');
  const checked = await checkCredentials(deps, {
    email: account.email,
    password: input.currentPassword,
    address: input.address,
  });
  if (checked?.id !== account.id) throw invalid('currentPassword', 'The current password is wrong');
  await setPassword(deps, account.email, input.newPassword, actor);
}
