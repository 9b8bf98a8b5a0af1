/** Account verbs: create and look up the people who sign in and own API keys. */

import { isUniqueViolation } from '../../db/storage';
import { AppError, invalid, notFound } from '../../lib/errors';
import { newId, randomToken } from '../../lib/ids';
import { type Access, authorize, OPERATOR } from '../access/public';
import { auditEntry, fieldsOf } from '../audit/public';
import type { AuthDeps } from './deps';
import { knownProjects } from './limits';
import { hashPassword, MIN_PASSWORD_LENGTH } from './passwords';
import type { AccountRow } from './store';
import { ROLES, type Role } from './table';

/** An account as other modules see it (the table itself stays private to this module). */
export type { AccountRow, Role };
export { ROLES };

/** An admin may do everything; "superuser" in the API and the code means exactly this. */
export function isAdmin(account: Pick<AccountRow, 'role'>): boolean {
  return account.role === 'admin';
}

/** Who a person is, as /me and every door that signs one in answer it. */
export function accountSummary(account: AccountRow) {
  return {
    id: account.id,
    email: account.email,
    superuser: isAdmin(account),
    role: account.role,
    projects: account.projects,
  };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface CreateAccountInput {
  email: string;
  /**
   * Absent or null: the account is made with a password nobody knows, so it cannot sign in until
   * one is set (an invite's address, or `slink user password`).
   */
  password?: string | null;
  /** Default editor; `superuser: true` (the older word) means admin. */
  role?: Role;
  superuser?: boolean;
  /** The projects it is limited to; null or absent for every link. */
  projects?: string[] | null;
}

export function checkPassword(password: string, field = 'password'): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw invalid(field, `Password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
}

/** The email trimmed, or invalid_request (field email) when it is not an address. */
export function checkEmail(raw: string): string {
  const email = raw.trim();
  if (!EMAIL.test(email) || email.length > 254) throw invalid('email', `Not a valid email address: ${email}`);
  return email;
}

function emailTaken(email: string): AppError {
  return new AppError('conflict', `An account for ${email} already exists`, 'email');
}

/** An admin sees every link: a project limit would mean nothing, so it is refused. */
export function refuseAdminLimit(role: Role, projects: readonly string[] | null): void {
  if (role === 'admin' && projects !== null) {
    throw invalid(
      'projects',
      'An admin sees every link: it cannot be limited to projects (give null, or another role)',
    );
  }
}

/**
 * Checks the input and hashes the password (the slow part) without writing anything; a store
 * write follows (insertAccount, or first-run setup's insertFirst, which writes only while no
 * account exists).
 */
export async function prepareAccount(deps: AuthDeps, input: CreateAccountInput): Promise<AccountRow> {
  const email = checkEmail(input.email);
  const password = input.password ?? null;
  if (password !== null) checkPassword(password);
  const role = input.role ?? (input.superuser ? 'admin' : 'editor');
  if (!(ROLES as readonly string[]).includes(role)) throw invalid('role', 'role must be admin, editor or viewer');
  const projects = await knownProjects(deps, input.projects);
  refuseAdminLimit(role, projects);
  if (await findAccountByEmail(deps, email)) throw emailTaken(email);
  return {
    id: newId('acc'),
    email,
    passwordHash: await hashPassword(password ?? randomToken()),
    role,
    createdAt: deps.clock.now(),
    lastSignInAt: null,
    disabledAt: null,
    projects,
  };
}

/** Writes a prepared account with its audit entry; the email is checked again by the unique index, as another request may have taken it meanwhile. */
export async function insertAccount(deps: AuthDeps, row: AccountRow, actor: Access = OPERATOR): Promise<AccountRow> {
  const fields = fieldsOf({ email: row.email, role: row.role, projects: row.projects ?? undefined });
  try {
    await deps.stores.accounts.insert(
      row,
      auditEntry(actor, 'account.create', { type: 'account', id: row.id }, fields, row.createdAt),
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw emailTaken(row.email);
    throw err;
  }
  return row;
}

/**
 * Creates an account; emails are unique without regard to case. Returns the new account. The
 * actor (an admin, or the operator's CLI by default) is checked and named in the audit log.
 */
export async function createAccount(
  deps: AuthDeps,
  input: CreateAccountInput,
  actor: Access = OPERATOR,
): Promise<AccountRow> {
  authorize(actor, 'account.write');
  return insertAccount(deps, await prepareAccount(deps, input), actor);
}

export function hasAccounts(deps: AuthDeps): Promise<boolean> {
  return deps.stores.accounts.any();
}

export function findAccountByEmail(deps: AuthDeps, email: string): Promise<AccountRow | null> {
  return deps.stores.accounts.findByEmail(email.trim());
}

export async function getAccountByEmailOrThrow(deps: AuthDeps, email: string): Promise<AccountRow> {
  const account = await findAccountByEmail(deps, email);
  if (!account) throw new AppError('not_found', `No account for ${email}`, 'user');
  return account;
}

export function findAccountById(deps: AuthDeps, id: string): Promise<AccountRow | null> {
  return deps.stores.accounts.findById(id);
}

export async function getAccountOrThrow(deps: AuthDeps, id: string): Promise<AccountRow> {
  const account = await findAccountById(deps, id);
  if (!account) throw notFound('account');
  return account;
}
