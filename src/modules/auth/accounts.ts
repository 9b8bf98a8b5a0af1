/** Account verbs: create and look up the people who sign in and own API keys. */

import { isUniqueViolation } from '../../db/storage';
import { AppError, invalid, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AuthDeps } from './deps';
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

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

interface CreateAccountInput {
  email: string;
  password: string;
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

/**
 * Checks the input and hashes the password (the slow part) without writing anything; a store
 * write follows (insertAccount, or first-run setup's insertFirst, which writes only while no
 * account exists).
 */
export async function prepareAccount(deps: AuthDeps, input: CreateAccountInput): Promise<AccountRow> {
  const email = checkEmail(input.email);
  checkPassword(input.password);
  if (await findAccountByEmail(deps, email)) throw emailTaken(email);
  return {
    id: newId('acc'),
    email,
    passwordHash: await hashPassword(input.password),
    role: input.role ?? (input.superuser ? 'admin' : 'editor'),
    createdAt: deps.clock.now(),
    lastSignInAt: null,
    disabledAt: null,
    projects: input.projects ?? null,
  };
}

/** Writes a prepared account; the email is checked again by the unique index, as another request may have taken it meanwhile. */
export async function insertAccount(deps: AuthDeps, row: AccountRow): Promise<AccountRow> {
  try {
    await deps.stores.accounts.insert(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw emailTaken(row.email);
    throw err;
  }
  return row;
}

/** Creates an account; emails are unique without regard to case. Returns the new account. */
export async function createAccount(deps: AuthDeps, input: CreateAccountInput): Promise<AccountRow> {
  return insertAccount(deps, await prepareAccount(deps, input));
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
