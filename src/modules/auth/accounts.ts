/** Account verbs: create and look up the people who sign in and own API keys. */
import { count, eq, sql } from 'drizzle-orm';
import type { BaseDeps } from '../../deps';
import { AppError, invalid, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { hashPassword, MIN_PASSWORD_LENGTH } from './passwords';
import { type AccountRow, accounts } from './table';

/** An account as other modules see it (the table itself stays private to this module). */
export type { AccountRow };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

interface CreateAccountInput {
  email: string;
  password: string;
  superuser?: boolean;
}

export function checkPassword(password: string, field = 'password'): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw invalid(field, `Password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
}

function emailTaken(email: string): AppError {
  return new AppError('conflict', `An account for ${email} already exists`, 'email');
}

/**
 * Checks the input and hashes the password (the slow, awaited part) without writing anything;
 * insertAccount then writes it synchronously, so a caller can re-check a condition between the
 * two with no await in between (first-run setup: "still no account").
 */
export async function prepareAccount(deps: BaseDeps, input: CreateAccountInput): Promise<AccountRow> {
  const email = input.email.trim();
  if (!EMAIL.test(email) || email.length > 254) throw invalid('email', `Not a valid email address: ${email}`);
  checkPassword(input.password);
  if (findAccountByEmail(deps, email)) throw emailTaken(email);
  return {
    id: newId('acc'),
    email,
    passwordHash: await hashPassword(input.password),
    isSuperuser: input.superuser ?? false,
    createdAt: deps.clock.now(),
    lastSignInAt: null,
    disabledAt: null,
  };
}

/** Writes a prepared account; the email is checked again, as another request may have taken it meanwhile. */
export function insertAccount(deps: BaseDeps, row: AccountRow): AccountRow {
  if (findAccountByEmail(deps, row.email)) throw emailTaken(row.email);
  deps.db.insert(accounts).values(row).run();
  return row;
}

/** Creates an account; emails are unique without regard to case. Returns the new account. */
export async function createAccount(deps: BaseDeps, input: CreateAccountInput): Promise<AccountRow> {
  return insertAccount(deps, await prepareAccount(deps, input));
}

export function hasAccounts(deps: BaseDeps): boolean {
  return (deps.db.select({ n: count() }).from(accounts).get()?.n ?? 0) > 0;
}

export function findAccountByEmail(deps: BaseDeps, email: string): AccountRow | undefined {
  return deps.db.select().from(accounts).where(sql`lower(${accounts.email}) = lower(${email.trim()})`).get();
}

export function getAccountByEmailOrThrow(deps: BaseDeps, email: string): AccountRow {
  const account = findAccountByEmail(deps, email);
  if (!account) throw new AppError('not_found', `No account for ${email}`, 'user');
  return account;
}

export function findAccountById(deps: BaseDeps, id: string): AccountRow | undefined {
  return deps.db.select().from(accounts).where(eq(accounts.id, id)).get();
}

export function getAccountOrThrow(deps: BaseDeps, id: string): AccountRow {
  const account = findAccountById(deps, id);
  if (!account) throw notFound('account');
  return account;
}

export function updateAccount(deps: BaseDeps, id: string, changes: Partial<AccountRow>): void {
  deps.db.update(accounts).set(changes).where(eq(accounts.id, id)).run();
}
