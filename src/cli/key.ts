/** `slink key create|revoke|list` */
import type { BaseDeps } from '../deps';
import { parseDuration } from '../lib/duration';
import { getAccountByEmailOrThrow } from '../modules/auth/accounts';
import { type ApiKeyListing, createApiKey, listApiKeys, revokeApiKey, type Scope } from '../modules/auth/keys';
import { option, parseArgs, UsageError } from './args';
import type { CliIo } from './io';

const CREATE_USAGE =
  'usage: slink key create --user <email> --scope read|write [--name <n>] [--expires-in <dur>] [--json]';

function createKey(deps: BaseDeps, argv: string[], io: CliIo): void {
  const args = parseArgs(argv, ['user', 'scope', 'name', 'expires-in'], ['json']);
  const email = option(args, 'user');
  const scope = option(args, 'scope');
  if (!email || !scope || args.positionals.length) throw new UsageError(CREATE_USAGE);
  if (scope !== 'read' && scope !== 'write') throw new UsageError('--scope must be read or write');
  let expiresAt: number | null = null;
  const expiresIn = option(args, 'expires-in');
  if (expiresIn !== undefined) {
    const ms = parseDuration(expiresIn);
    if (ms === null) throw new UsageError(`--expires-in must look like 90s, 15m, 12h or 30d, got "${expiresIn}"`);
    expiresAt = deps.clock.now() + ms;
  }
  const account = getAccountByEmailOrThrow(deps, email);
  const { row, key } = createApiKey(deps, {
    accountId: account.id,
    scope: scope as Scope,
    name: option(args, 'name') ?? null,
    expiresAt,
  });
  io.out(
    args.options.has('json') ? JSON.stringify({ id: row.id, key, scope: row.scope, expiresAt: row.expiresAt }) : key,
  );
}

function keyStatus(key: ApiKeyListing, now: number): string {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  return 'active';
}

const iso = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));

function listKeys(deps: BaseDeps, argv: string[], io: CliIo): void {
  const args = parseArgs(argv, ['user'], ['json']);
  if (args.positionals.length) throw new UsageError('usage: slink key list [--user <email>] [--json]');
  const email = option(args, 'user');
  const keys = listApiKeys(deps, email ? getAccountByEmailOrThrow(deps, email).id : undefined);
  const now = deps.clock.now();
  if (args.options.has('json')) {
    io.out(
      JSON.stringify(
        keys.map((k) => ({
          id: k.id,
          prefix: k.prefix,
          name: k.name,
          scope: k.scope,
          user: k.email,
          status: keyStatus(k, now),
          createdAt: k.createdAt,
          expiresAt: k.expiresAt,
          lastUsedAt: k.lastUsedAt,
          revokedAt: k.revokedAt,
        })),
      ),
    );
    return;
  }
  const rows = [
    ['ID', 'PREFIX', 'SCOPE', 'STATUS', 'USER', 'NAME', 'CREATED', 'EXPIRES', 'LAST USED'],
    ...keys.map((k) => [
      k.id,
      k.prefix,
      k.scope,
      keyStatus(k, now),
      k.email,
      k.name ?? '-',
      iso(k.createdAt),
      iso(k.expiresAt),
      iso(k.lastUsedAt),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const row of rows)
    io.out(
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
}

export function keyCommand(deps: BaseDeps, argv: string[], io: CliIo): void {
  const [verb, ...rest] = argv;
  if (verb === 'create') {
    createKey(deps, rest, io);
    return;
  }
  if (verb === 'list') {
    listKeys(deps, rest, io);
    return;
  }
  if (verb === 'revoke') {
    const args = parseArgs(rest, [], []);
    if (args.positionals.length !== 1) throw new UsageError('usage: slink key revoke <keyId>');
    revokeApiKey(deps, args.positionals[0]!);
    return;
  }
  throw new UsageError(`unknown key command "${verb ?? ''}" (try: key create, key revoke, key list)`);
}
