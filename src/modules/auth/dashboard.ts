/**
 * Keys and accounts as the API and the dashboard show and change them. The acting person comes
 * first (their Access); the powers checks are the first line of the verbs that need them.
 */

import { invalid, notFound } from '../../lib/errors';
import { type Access, authorize, refusal } from '../access/public';
import { type CreateAccountInput, createAccount, isAdmin } from './accounts';
import { type AccountUpdateInput, listAccounts, updateAccount } from './admin';
import type { AuthDeps } from './deps';
import { createApiKey, findApiKey, listApiKeys, revokeApiKey } from './keys';
import { hostsOf } from './limits';
import type { AccountItem, KeyItem, OwnedKeyItem, Scope } from './model';
import type { AccountRow, ApiKeyRow } from './store';

async function toKeyItem(deps: AuthDeps, row: ApiKeyRow, now: number): Promise<KeyItem> {
  const status =
    row.revokedAt !== null ? 'revoked' : row.expiresAt !== null && row.expiresAt <= now ? 'expired' : 'active';
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scope: row.scope,
    status,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
    projects: row.projects,
    domains: await hostsOf(deps, row.domains),
  };
}

/** One shape for an account, in the API (/api/v1/accounts) and the dashboard (/api/app/accounts). */
export function toAccountItem(row: AccountRow): AccountItem {
  return {
    id: row.id,
    email: row.email,
    superuser: isAdmin(row),
    role: row.role,
    projects: row.projects,
    disabled: row.disabledAt !== null,
    createdAt: row.createdAt,
    lastSignInAt: row.lastSignInAt,
    disabledAt: row.disabledAt,
  };
}

/** The actor's own keys, newest first; never the secret (only its hash is stored). */
export async function listOwnKeys(deps: AuthDeps, actor: Access): Promise<KeyItem[]> {
  if (actor.accountId === null) return [];
  const now = deps.clock.now();
  return Promise.all((await listApiKeys(deps, actor.accountId)).map((row) => toKeyItem(deps, row, now)));
}

/** Every account's keys with their owner's email, newest first: for whom the matrix allows `key.any` (an admin). */
export async function listEveryKeyAs(deps: AuthDeps, actor: Access): Promise<OwnedKeyItem[]> {
  authorize(actor, 'key.any');
  const now = deps.clock.now();
  return Promise.all(
    (await listApiKeys(deps)).map(async (row) => ({
      ...(await toKeyItem(deps, row, now)),
      accountId: row.accountId,
      email: row.email,
    })),
  );
}

interface CreateOwnKeyInput {
  name?: string | null;
  scope: Scope;
  expiresAt?: number | null;
  projects?: string[] | null;
  domains?: string[] | null;
}

/** Creates a key of the actor's account; the secret is in the result this once. */
export async function createOwnKey(deps: AuthDeps, actor: Access, input: CreateOwnKeyInput) {
  authorize(actor, 'key.own');
  if (actor.accountId === null) throw notFound('account');
  const expiresAt = input.expiresAt ?? null;
  if (expiresAt !== null && expiresAt <= deps.clock.now())
    throw invalid('expiresAt', 'expiresAt must be in the future');
  const created = await createApiKey(
    deps,
    {
      accountId: actor.accountId,
      scope: input.scope,
      name: input.name ?? null,
      expiresAt,
      projects: input.projects ?? null,
      domains: input.domains ?? null,
    },
    actor,
  );
  return { key: created.key, item: await toKeyItem(deps, created.row, deps.clock.now()) };
}

/**
 * Revokes one of the actor's keys, or another account's key for whom the matrix allows `key.any`
 * (an admin). A key one may not revoke is not_found, as is none: "not yours" never leaks.
 */
export async function revokeKeyAs(deps: AuthDeps, actor: Access, keyId: string): Promise<void> {
  const row = await findApiKey(deps, keyId);
  if (!row || (row.accountId !== actor.accountId && refusal(actor, 'key.any'))) throw notFound('key');
  await revokeApiKey(deps, keyId, actor);
}

export async function listAccountsAs(deps: AuthDeps, actor: Access): Promise<AccountItem[]> {
  authorize(actor, 'account.read');
  return (await listAccounts(deps)).map(toAccountItem);
}

export async function createAccountAs(deps: AuthDeps, actor: Access, input: CreateAccountInput): Promise<AccountItem> {
  return toAccountItem(await createAccount(deps, input, actor));
}

export async function updateAccountAs(
  deps: AuthDeps,
  actor: Access,
  id: string,
  input: AccountUpdateInput,
): Promise<AccountItem> {
  return toAccountItem(await updateAccount(deps, actor, id, input));
}
