/**
 * API key verbs. A key looks like `slk_` + 8 lookup characters + 32 secret characters.
 * Only the first 12 characters (the prefix, safe to show) and sha256 of the whole key are
 * stored; the key itself is returned once, by createApiKey, and never again.
 */
import { storageFailure } from '../../db/storage';
import { AppError, invalid, notFound } from '../../lib/errors';
import { digestsEqual, sha256Hex } from '../../lib/hash';
import { newId, randomString } from '../../lib/ids';
import { type Access, OPERATOR } from '../access/public';
import { auditEntry, fieldsOf } from '../audit/public';
import type { AuthDeps } from './deps';
import { domainIdsOf, knownProjects } from './limits';
import type { Scope } from './model';
import type { AccountRow, ApiKeyRow } from './store';
import { SCOPES } from './table';

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
  /** Limits of the key's own, within its account's (access/): project ids, domain hosts; null for none. */
  projects?: string[] | null;
  domains?: string[] | null;
}

interface CreatedApiKey {
  row: ApiKeyRow;
  /** The plaintext key: shown once, never stored. */
  key: string;
}

/**
 * Creates a key of an account, with its audit entry (the actor: the person in the dashboard, or
 * the operator's CLI by default). Its limits lie within its account's: a project its account
 * is not limited to is 400 (field projects), as is an unknown project or domain.
 */
export async function createApiKey(
  deps: AuthDeps,
  input: CreateApiKeyInput,
  actor: Access = OPERATOR,
): Promise<CreatedApiKey> {
  if (!(SCOPES as readonly string[]).includes(input.scope))
    throw invalid('scope', 'Scope must be read, write or create');
  const account = await deps.stores.accounts.findById(input.accountId);
  if (!account) throw notFound('account');
  if (input.scope === 'write' && account.role === 'viewer') {
    // A key never has more than its account: a viewer's is read, or create (for a form).
    throw new AppError(
      'insufficient_scope',
      "A viewer's key can only read or create: ask for scope read or create",
      'scope',
    );
  }
  if (input.name && input.name.length > 100) throw invalid('name', 'Key name is at most 100 characters');
  const projects = await knownProjects(deps, input.projects);
  const beyond = account.projects === null ? [] : (projects ?? []).filter((id) => !account.projects!.includes(id));
  if (beyond.length) {
    throw invalid('projects', `The key's account is limited to other projects: ${beyond.join(', ')} is beyond them`);
  }
  const domains = await domainIdsOf(deps, input.domains);
  const fields = fieldsOf({
    name: input.name ?? undefined,
    scope: input.scope,
    expiresAt: input.expiresAt ?? undefined,
    projects: projects ?? undefined,
    domains: domains ?? undefined,
  });
  for (;;) {
    const key = `slk_${randomString(40)}`;
    const prefix = key.slice(0, PREFIX_LENGTH);
    if (await deps.stores.keys.prefixTaken(prefix)) continue;
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
      projects,
      domains,
    };
    await deps.stores.keys.insert(
      row,
      auditEntry(actor, 'key.create', { type: 'key', id: row.id }, fields, row.createdAt),
    );
    return { row, key };
  }
}

export function findApiKey(deps: AuthDeps, keyId: string): Promise<ApiKeyRow | null> {
  return deps.stores.keys.find(keyId);
}

export async function revokeApiKey(deps: AuthDeps, keyId: string, actor: Access = OPERATOR): Promise<ApiKeyRow> {
  const row = await findApiKey(deps, keyId);
  if (!row) throw notFound('key');
  if (row.revokedAt !== null) return row;
  const revokedAt = deps.clock.now();
  await deps.stores.keys.revoke(
    keyId,
    revokedAt,
    auditEntry(actor, 'key.revoke', { type: 'key', id: keyId }, [], revokedAt),
  );
  return { ...row, revokedAt };
}

export interface ApiKeyListing extends ApiKeyRow {
  email: string;
}

export function listApiKeys(deps: AuthDeps, accountId?: string): Promise<ApiKeyListing[]> {
  return deps.stores.keys.list(accountId);
}

export interface Principal {
  key: ApiKeyRow;
  account: AccountRow;
}

/**
 * Resolves a presented key to its key and account, or throws key_unknown, key_revoked (the key,
 * or its account while disabled) or key_expired. The hash comparison is constant-time and runs even when no row matches.
 */
export async function verifyApiKey(deps: AuthDeps, presented: string): Promise<Principal> {
  const wellFormed = KEY_PATTERN.test(presented);
  const found = wellFormed ? await deps.stores.keys.findByPrefix(presented.slice(0, PREFIX_LENGTH)) : null;
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
      await deps.stores.keys.touch(found.key.id, now);
    } catch (err) {
      // Advisory: a database that cannot be written (full, read-only) still answers reads.
      if (storageFailure(err) === null) throw err;
      return found;
    }
    return { ...found, key: { ...found.key, lastUsedAt: now } };
  }
  return found;
}
