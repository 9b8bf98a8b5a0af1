/**
 * What a signed-in person does with keys and accounts in the dashboard (/api/app). The acting
 * account comes first; superuser checks are the first line of the verbs that need them.
 */

import { invalid, notFound } from '../../lib/errors';
import { createAccount, isAdmin } from './accounts';
import { listAccounts, requireSuperuser } from './admin';
import type { AuthDeps } from './deps';
import { createApiKey, findApiKey, listApiKeys, revokeApiKey } from './keys';
import type { AccountItem, KeyItem, Scope } from './model';
import type { AccountRow, ApiKeyRow } from './store';

function toKeyItem(row: ApiKeyRow, now: number): KeyItem {
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
  };
}

export function toAccountItem(row: AccountRow): AccountItem {
  return {
    id: row.id,
    email: row.email,
    superuser: isAdmin(row),
    role: row.role,
    createdAt: row.createdAt,
    lastSignInAt: row.lastSignInAt,
    disabledAt: row.disabledAt,
  };
}

/** The actor's own keys, newest first; never the secret (only its hash is stored). */
export async function listOwnKeys(deps: AuthDeps, actor: AccountRow): Promise<KeyItem[]> {
  const now = deps.clock.now();
  return (await listApiKeys(deps, actor.id)).map((row) => toKeyItem(row, now));
}

interface CreateOwnKeyInput {
  name?: string | null;
  scope: Scope;
  expiresAt?: number | null;
}

/** Creates a key of the actor's account; the secret is in the result this once. */
export async function createOwnKey(deps: AuthDeps, actor: AccountRow, input: CreateOwnKeyInput) {
  const expiresAt = input.expiresAt ?? null;
  if (expiresAt !== null && expiresAt <= deps.clock.now())
    throw invalid('expiresAt', 'expiresAt must be in the future');
  const created = await createApiKey(deps, {
    accountId: actor.id,
    scope: input.scope,
    name: input.name ?? null,
    expiresAt,
  });
  return { key: created.key, item: toKeyItem(created.row, deps.clock.now()) };
}

/** Revokes one of the actor's keys, or any key for a superuser; a key one may not see is not_found. */
export async function revokeKeyAs(deps: AuthDeps, actor: AccountRow, keyId: string): Promise<void> {
  const row = await findApiKey(deps, keyId);
  if (!row || (row.accountId !== actor.id && !isAdmin(actor))) throw notFound('key');
  await revokeApiKey(deps, keyId);
}

export async function listAccountsAs(deps: AuthDeps, actor: AccountRow): Promise<AccountItem[]> {
  requireSuperuser(actor);
  return (await listAccounts(deps)).map(toAccountItem);
}

export async function createAccountAs(
  deps: AuthDeps,
  actor: AccountRow,
  input: { email: string; password: string; superuser?: boolean },
): Promise<AccountItem> {
  requireSuperuser(actor);
  return toAccountItem(await createAccount(deps, input));
}
