/** `slink key create|revoke|list` */
import type { BaseDeps } from '../compose/deps';
import { parseDuration } from '../lib/duration';
import {
  type ApiKeyListing,
  createApiKey,
  getAccountByEmailOrThrow,
  listApiKeys,
  revokeApiKey,
} from '../modules/auth/public';
import { listOption, parseCommand, UsageError } from './args';
import type { CliIo } from './io';
import { iso, printTable } from './table';

const CREATE_USAGE =
  'usage: slink key create --user <email> --scope read|write|create [--name <n>] [--expires-in <dur>] [--projects <id,id>] [--domains <host,host>] [--json]';

async function createKey(deps: BaseDeps, argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseCommand(argv, {
    user: { type: 'string' },
    scope: { type: 'string' },
    name: { type: 'string' },
    'expires-in': { type: 'string' },
    projects: { type: 'string' },
    domains: { type: 'string' },
    json: { type: 'boolean' },
  });
  const { user: email, scope } = values;
  if (!email || !scope || positionals.length) throw new UsageError(CREATE_USAGE);
  if (scope !== 'read' && scope !== 'write' && scope !== 'create') {
    throw new UsageError('--scope must be read, write or create');
  }
  let expiresAt: number | null = null;
  const expiresIn = values['expires-in'];
  if (expiresIn !== undefined) {
    const ms = parseDuration(expiresIn);
    if (ms === null) throw new UsageError(`--expires-in must look like 90s, 15m, 12h or 30d, got "${expiresIn}"`);
    expiresAt = deps.clock.now() + ms;
  }
  const account = await getAccountByEmailOrThrow(deps, email);
  const { row, key } = await createApiKey(deps, {
    accountId: account.id,
    scope,
    name: values.name ?? null,
    expiresAt,
    projects: listOption(values.projects),
    domains: listOption(values.domains),
  });
  io.out(
    values.json
      ? JSON.stringify({
          id: row.id,
          key,
          scope: row.scope,
          expiresAt: row.expiresAt,
          // The limits only when given: scripts reading the four fields keep working.
          ...(row.projects === null ? {} : { projects: row.projects }),
          ...(row.domains === null ? {} : { domains: listOption(values.domains) }),
        })
      : key,
  );
}

function keyStatus(key: ApiKeyListing, now: number): string {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  return 'active';
}

async function listKeys(deps: BaseDeps, argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseCommand(argv, { user: { type: 'string' }, json: { type: 'boolean' } });
  if (positionals.length) throw new UsageError('usage: slink key list [--user <email>] [--json]');
  const email = values.user;
  const keys = await listApiKeys(deps, email ? (await getAccountByEmailOrThrow(deps, email)).id : undefined);
  const now = deps.clock.now();
  const hosts = new Map((await deps.stores.domains.list()).map((d) => [d.id, d.host]));
  const domainsOf = (k: ApiKeyListing) => k.domains?.map((id) => hosts.get(id) ?? String(id)) ?? null;
  if (values.json) {
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
          projects: k.projects,
          domains: domainsOf(k),
        })),
      ),
    );
    return;
  }
  const rows = [
    // The columns scripts already read keep their places; the limits come last.
    ['ID', 'PREFIX', 'SCOPE', 'STATUS', 'USER', 'NAME', 'CREATED', 'EXPIRES', 'LAST USED', 'PROJECTS', 'DOMAINS'],
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
      k.projects?.join(',') ?? 'all',
      domainsOf(k)?.join(',') ?? 'all',
    ]),
  ];
  printTable(io, rows);
}

export async function keyCommand(deps: BaseDeps, argv: string[], io: CliIo): Promise<void> {
  const [verb, ...rest] = argv;
  if (verb === 'create') return createKey(deps, rest, io);
  if (verb === 'list') return listKeys(deps, rest, io);
  if (verb === 'revoke') {
    const { positionals } = parseCommand(rest, {});
    if (positionals.length !== 1) throw new UsageError('usage: slink key revoke <keyId>');
    await revokeApiKey(deps, positionals[0]!);
    return;
  }
  throw new UsageError(`unknown key command "${verb ?? ''}" (try: key create, key revoke, key list)`);
}
