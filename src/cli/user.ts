/** `slink user add|list|password|invite` */
import type { BaseDeps } from '../compose/deps';
import { OPERATOR } from '../modules/access/public';
import { createAccount, listAccounts, ROLES, type Role, setPassword } from '../modules/auth/public';
import { createInvite } from '../modules/invites/public';
import { endSetup } from '../modules/sessions/public';
import { listOption, parseCommand, UsageError } from './args';
import type { CliIo } from './io';
import { iso, printTable } from './table';

const INVITE_USAGE = 'usage: slink user invite <email> [--role admin|editor|viewer] [--projects <id,id>] [--json]';
const ADD_USAGE =
  'usage: slink user add <email> [--role admin|editor|viewer] [--superuser] [--projects <id,id>] [--password <pw>]';

/** The first line of stdin: a password piped in (or typed, then Ctrl-D) stays out of shell history. */
async function passwordFromStdin(io: CliIo): Promise<string> {
  return (await io.readStdin()).split(/\r?\n/)[0] ?? '';
}

/** --role, default editor; --superuser is the older spelling of --role admin. */
function roleOf(given: string | undefined, superuser: boolean): Role {
  if (given !== undefined && !(ROLES as readonly string[]).includes(given)) {
    throw new UsageError(`--role must be admin, editor or viewer, got "${given}"`);
  }
  if (superuser && given !== undefined && given !== 'admin') {
    throw new UsageError(`--superuser means --role admin: it contradicts --role ${given}`);
  }
  return superuser ? 'admin' : ((given as Role | undefined) ?? 'editor');
}

async function addUser(deps: BaseDeps, argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseCommand(argv, {
    password: { type: 'string' },
    superuser: { type: 'boolean' },
    role: { type: 'string' },
    projects: { type: 'string' },
  });
  const [email, extra] = positionals;
  if (!email || extra !== undefined) throw new UsageError(ADD_USAGE);
  const role = roleOf(values.role, values.superuser === true);
  const password = values.password ?? (await passwordFromStdin(io));
  const projects = listOption(values.projects);
  const account = await createAccount(deps, { email, password, role, projects });
  // The setup addresses running nodes logged stop working (they answer setup_done already).
  await endSetup(deps);
  io.out(account.id);
}

async function listUsers(deps: BaseDeps, argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseCommand(argv, { json: { type: 'boolean' } });
  if (positionals.length) throw new UsageError('usage: slink user list [--json]');
  // Never the password hash: only what an operator needs to tell accounts apart.
  const accounts = (await listAccounts(deps)).map((a) => ({
    id: a.id,
    email: a.email,
    role: a.role,
    superuser: a.role === 'admin',
    projects: a.projects,
    createdAt: a.createdAt,
    lastSignInAt: a.lastSignInAt,
    disabledAt: a.disabledAt,
  }));
  if (values.json) {
    io.out(JSON.stringify(accounts));
    return;
  }
  printTable(io, [
    // The columns scripts already read keep their places; the role and projects come last.
    ['ID', 'EMAIL', 'SUPERUSER', 'CREATED', 'LAST SIGN-IN', 'DISABLED', 'ROLE', 'PROJECTS'],
    ...accounts.map((a) => [
      a.id,
      a.email,
      a.superuser ? 'yes' : 'no',
      iso(a.createdAt),
      iso(a.lastSignInAt),
      iso(a.disabledAt),
      a.role,
      a.projects?.join(',') ?? 'all',
    ]),
  ]);
}

/** Sets the password from stdin only: on the command line it would land in shell history and `ps`. */
async function setUserPassword(deps: BaseDeps, argv: string[], io: CliIo): Promise<void> {
  const { positionals } = parseCommand(argv, {});
  if (positionals.length !== 1) throw new UsageError('usage: slink user password <email> (the new password on stdin)');
  await setPassword(deps, positionals[0]!, await passwordFromStdin(io));
}

/**
 * Invites a person (docs/behaviour.md, "Invites"): prints the one-time address, valid 7 days,
 * where they choose their own password; the operator never knows it. Written to the audit log
 * as the CLI's.
 */
async function inviteUser(deps: BaseDeps, argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseCommand(argv, {
    role: { type: 'string' },
    projects: { type: 'string' },
    json: { type: 'boolean' },
  });
  const [email, extra] = positionals;
  if (!email || extra !== undefined) throw new UsageError(INVITE_USAGE);
  const role = roleOf(values.role, false);
  const created = await createInvite(deps, OPERATOR, { email, role, projects: listOption(values.projects) });
  io.out(values.json ? JSON.stringify(created) : created.url);
}

export async function userCommand(deps: BaseDeps, argv: string[], io: CliIo): Promise<void> {
  const [verb, ...rest] = argv;
  if (verb === 'add') return addUser(deps, rest, io);
  if (verb === 'list') return listUsers(deps, rest, io);
  if (verb === 'password') return setUserPassword(deps, rest, io);
  if (verb === 'invite') return inviteUser(deps, rest, io);
  throw new UsageError(`unknown user command "${verb ?? ''}" (try: user add, user list, user password, user invite)`);
}
