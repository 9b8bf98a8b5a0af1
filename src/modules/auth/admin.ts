/**
 * What operators and admins do to accounts: list them, set a password, change role, projects
 * and status. Each change that takes access away ends the account's dashboard sessions at once;
 * disabling also revokes its API keys; lowering a role or narrowing projects narrows its keys.
 * Every change is written to the audit log in its own transaction.
 */

import { AppError, conflict, invalid, notFound } from '../../lib/errors';
import { type Access, authorize, OPERATOR } from '../access/public';
import { auditEntry } from '../audit/public';
import { checkPassword, getAccountByEmailOrThrow, getAccountOrThrow, isAdmin, refuseAdminLimit } from './accounts';
import type { AuthDeps } from './deps';
import { knownProjects } from './limits';
import { hashPassword } from './passwords';
import type { AccountChange, AccountRow } from './store';
import { ROLES, type Role } from './table';

/** Every account, oldest first (for `slink user list` and the accounts pages). */
export function listAccounts(deps: AuthDeps): Promise<AccountRow[]> {
  return deps.stores.accounts.list();
}

/** Sets a new password and ends every session of the account: whoever knew the old one must sign in again. */
export async function setPassword(
  deps: AuthDeps,
  email: string,
  password: string,
  actor: Access = OPERATOR,
): Promise<AccountRow> {
  const account = await getAccountByEmailOrThrow(deps, email);
  checkPassword(password);
  const passwordHash = await hashPassword(password);
  const audit = auditEntry(
    actor,
    'account.update',
    { type: 'account', id: account.id },
    ['password'],
    deps.clock.now(),
  );
  // The sessions end in the same transaction.
  await deps.stores.accounts.setPassword(account.id, passwordHash, audit);
  return { ...account, passwordHash };
}

export function requireSuperuser(account: AccountRow): void {
  if (!isAdmin(account)) throw new AppError('superuser_required', 'Only a superuser may manage accounts');
}

export interface AccountUpdateInput {
  role?: Role;
  projects?: string[] | null;
  disabled?: boolean;
}

/**
 * Changes an account's role, projects and status (absent: unchanged), as one audited change.
 * - The last active admin can be neither demoted nor disabled (409 conflict): the store checks
 *   it inside the change's transaction, so two admins demoting each other at once leave one.
 * - An admin cannot be limited to projects (400 projects); one promoted to admin loses its limit.
 * - Disabling ends its sessions and revokes its keys; enabling gives back sign-in, never the
 *   keys, which may have leaked with whatever got the account disabled. One cannot disable
 *   one's own account (400 disabled).
 * - A new viewer's write keys become read, and its keys' project limits are cut to its new
 *   ones, in the same transaction; its live sessions keep working with the new powers.
 */
export async function updateAccount(
  deps: AuthDeps,
  actor: Access,
  id: string,
  input: AccountUpdateInput,
): Promise<AccountRow> {
  authorize(actor, 'account.write');
  const account = await getAccountOrThrow(deps, id);
  if (input.role !== undefined && !(ROLES as readonly string[]).includes(input.role)) {
    throw invalid('role', 'role must be admin, editor or viewer');
  }
  if (input.disabled === true && actor.accountId === id)
    throw invalid('disabled', 'You cannot disable your own account');
  const role = input.role ?? account.role;
  let projects = input.projects === undefined ? account.projects : await knownProjects(deps, input.projects);
  if (role === 'admin' && input.projects === undefined) projects = null;
  refuseAdminLimit(role, projects);

  const change: AccountChange = {};
  const fields: string[] = [];
  if (role !== account.role) {
    change.role = role;
    fields.push('role');
  }
  if (!sameList(projects, account.projects)) {
    change.projects = projects;
    fields.push('projects');
  }
  if (input.disabled !== undefined && input.disabled !== (account.disabledAt !== null)) {
    change.disabledAt = input.disabled ? deps.clock.now() : null;
    fields.push('disabled');
  }
  if (fields.length === 0) return account;
  const audit = auditEntry(actor, 'account.update', { type: 'account', id }, fields.sort(), deps.clock.now());
  const done = await deps.stores.accounts.update(id, change, audit);
  if (done === 'missing') throw notFound('account');
  if (done === 'last_admin') {
    throw conflict(
      change.disabledAt !== undefined && change.role === undefined ? 'disabled' : 'role',
      'This is the last active admin: make another account admin first',
    );
  }
  return done.row;
}

function sameList(a: readonly string[] | null, b: readonly string[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((x) => b.includes(x));
}
