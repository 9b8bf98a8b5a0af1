/** Account verbs: create and look up the people who own API keys. */
import { sql } from 'drizzle-orm';
import type { BaseDeps } from '../../deps';
import { AppError, invalid } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { hashPassword, MIN_PASSWORD_LENGTH } from './passwords';
import { type AccountRow, accounts } from './table';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface CreateAccountInput {
  email: string;
  password: string;
  superuser?: boolean;
}

/** Creates an account; emails are unique without regard to case. Returns the new account. */
export async function createAccount(deps: BaseDeps, input: CreateAccountInput): Promise<AccountRow> {
  const email = input.email.trim();
  if (!EMAIL.test(email) || email.length > 254) throw invalid('email', `Not a valid email address: ${email}`);
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw invalid('password', `Password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (findAccountByEmail(deps, email))
    throw new AppError('conflict', `An account for ${email} already exists`, 'email');
  const row: AccountRow = {
    id: newId('acc'),
    email,
    passwordHash: await hashPassword(input.password),
    isSuperuser: input.superuser ?? false,
    createdAt: deps.clock.now(),
  };
  deps.db.insert(accounts).values(row).run();
  return row;
}

export function findAccountByEmail(deps: BaseDeps, email: string): AccountRow | undefined {
  return deps.db.select().from(accounts).where(sql`lower(${accounts.email}) = lower(${email.trim()})`).get();
}

export function getAccountByEmailOrThrow(deps: BaseDeps, email: string): AccountRow {
  const account = findAccountByEmail(deps, email);
  if (!account) throw new AppError('not_found', `No account for ${email}`, 'user');
  return account;
}
