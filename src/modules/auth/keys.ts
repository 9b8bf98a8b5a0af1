/**
 * API key verbs. A key looks like `slk_` + 8 lookup characters + 32 secret characters.
 * Only the first 12 characters (the prefix, safe to show) and sha256 of the whole key are
 * stored; the key itself is returned once, by createApiKey, and never again.
 */
import { and, desc, eq, isNull } from 'drizzle-orm';
import { storageFailure } from '../../db/storage';
import type { BaseDeps } from '../../deps';
import { AppError, invalid, notFound } from '../../lib/errors';
import { digestsEqual, sha256Hex } from '../../lib/hash';
import { newId, randomString } from '../../lib/ids';
import type { Scope } from './model';
import { type AccountRow, type ApiKeyRow, accounts, apiKeys } from './table';

const KEY_PATTERN = /^slk_[A-Za-z0-9]{40}$/;
const PREFIX_LENGTH = 12;
// Compared against when no row matches, so a miss costs the same as a hit.
const DUMMY_HASH = sha256Hex('slink-dummy-key');
// lastUsedAt is advisory: write it at most once a minute per key instead of on every request.
const LAST_USED_RESOLUTION_MS = 60_000;

interface CreateApiKeyInput {
  accountId: string;
  scope: Scope;
  name?: string | null;
  expiresAt?: number | null;
}

interface CreatedApiKey {
  row: ApiKeyRow;
  /** The plaintext key: shown once, never stored. */
  key: string;
}

export function createApiKey(deps: BaseDeps, input: CreateApiKeyInput): CreatedApiKey {
  if (input.scope !== 'read' && input.scope !== 'write') throw invalid('scope', 'Scope must be read or write');
  if (input.name && input.name.length > 100) throw invalid('name', 'Key name is at most 100 characters');
  for (;;) {
    const key = `slk_${randomString(40)}`;
    const prefix = key.slice(0, PREFIX_LENGTH);
    if (deps.db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.prefix, prefix)).get()) continue;
    const row: ApiKeyRow = {
      id: newId('key'),
      accountId: input.accountId,
      name: input.name ?? null,
      prefix,
      hash: sha256Hex(key),
      scope: input.scope,
      expiresAt: input.expiresAt ?? null,
      revokedAt: null,
      lastUsedAt: null,
      createdAt: deps.clock.now(),
    };
    deps.db.insert(apiKeys).values(row).run();
    return { row, key };
  }
}

export function findApiKey(deps: BaseDeps, keyId: string): ApiKeyRow | undefined {
  return deps.db.select().from(apiKeys).where(eq(apiKeys.id, keyId)).get();
}

export function revokeApiKey(deps: BaseDeps, keyId: string): ApiKeyRow {
  const row = findApiKey(deps, keyId);
  if (!row) throw notFound('key');
  if (row.revokedAt !== null) return row;
  const revokedAt = deps.clock.now();
  deps.db.update(apiKeys).set({ revokedAt }).where(eq(apiKeys.id, keyId)).run();
  return { ...row, revokedAt };
}

/** Revokes every live key of an account at `now`; returns how many. */
export function revokeKeysOfAccount(deps: BaseDeps, accountId: string, now: number): number {
  return deps.db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id })
    .all().length;
}

export interface ApiKeyListing extends ApiKeyRow {
  email: string;
}

export function listApiKeys(deps: BaseDeps, accountId?: string): ApiKeyListing[] {
  return deps.db
    .select({ key: apiKeys, email: accounts.email })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(accountId ? eq(apiKeys.accountId, accountId) : undefined)
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
    .all()
    .map(({ key, email }) => ({ ...key, email }));
}

export interface Principal {
  key: ApiKeyRow;
  account: AccountRow;
}

/**
 * Resolves a presented key to its key and account, or throws key_unknown, key_revoked (the key,
 * or its account while disabled) or key_expired. The hash comparison is constant-time and runs even when no row matches.
 */
export function verifyApiKey(deps: BaseDeps, presented: string): Principal {
  const wellFormed = KEY_PATTERN.test(presented);
  const found = wellFormed
    ? deps.db
        .select({ key: apiKeys, account: accounts })
        .from(apiKeys)
        .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
        .where(eq(apiKeys.prefix, presented.slice(0, PREFIX_LENGTH)))
        .get()
    : undefined;
  const matches = digestsEqual(sha256Hex(presented), found?.key.hash ?? DUMMY_HASH);
  if (!found || !matches) throw new AppError('key_unknown', 'The API key is not valid');
  const now = deps.clock.now();
  if (found.key.revokedAt !== null) throw new AppError('key_revoked', 'The API key was revoked');
  // Disabling an account revokes its keys (auth/admin.ts); this covers a key made meanwhile by
  // a path that does not check the account (`slink key create` on a disabled account).
  if (found.account.disabledAt !== null) throw new AppError('key_revoked', "The API key's account is disabled");
  if (found.key.expiresAt !== null && found.key.expiresAt <= now) {
    throw new AppError('key_expired', 'The API key has expired');
  }
  if (found.key.lastUsedAt === null || now - found.key.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
    try {
      deps.db
        .update(apiKeys)
        .set({ lastUsedAt: now })
        .where(and(eq(apiKeys.id, found.key.id), isNull(apiKeys.revokedAt)))
        .run();
    } catch (err) {
      // Advisory: a database that cannot be written (full, read-only) still answers reads.
      if (storageFailure(err) === null) throw err;
      return found;
    }
    return { ...found, key: { ...found.key, lastUsedAt: now } };
  }
  return found;
}
