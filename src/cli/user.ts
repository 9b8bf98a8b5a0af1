/** `slink user add|list|password` */
import type { BaseDeps } from '../compose/deps';
import { createAccount, listAccounts, setPassword } from '../modules/auth/public';
import { endSetup } from '../modules/sessions/public';
import { parseCommand, UsageError } from './args';
import type { CliIo } from './io';
import { iso, printTable } from './table';

const ADD_USAGE = 'usage: slink user add <email> [--superuser] [--password <pw>]';

/** The first line of stdin: a password piped in (or typed, then Ctrl-D) stays out of shell history. */
async function passwordFromStdin(io: CliIo): Promise<string> {
  return (await io.readStdin()).split(/\r?\n/)[0] ?? '';
}

async function addUser(deps: BaseDeps, argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseCommand(argv, { password: { type: 'string' }, superuser: { type: 'boolean' } });
  const [email, extra] = positionals;
  if (!email || extra !== undefined) throw new UsageError(ADD_USAGE);
  const password = values.password ?? (await passwordFromStdin(io));
  const account = await createAccount(deps, { email, password, superuser: values.superuser === true });
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
    superuser: a.isSuperuser,
    createdAt: a.createdAt,
    lastSignInAt: a.lastSignInAt,
    disabledAt: a.disabledAt,
  }));
  if (values.json) {
    io.out(JSON.stringify(accounts));
    return;
  }
  printTable(io, [
    ['ID', 'EMAIL', 'SUPERUSER', 'CREATED', 'LAST SIGN-IN', 'DISABLED'],
    ...accounts.map((a) => [
      a.id,
      a.email,
      a.superuser ? 'yes' : 'no',
      iso(a.createdAt),
      iso(a.lastSignInAt),
      iso(a.disabledAt),
    ]),
  ]);
}

/** Sets the password from stdin only: on the command line it would land in shell history and `ps`. */
async function setUserPassword(deps: BaseDeps, argv: string[], io: CliIo): Promise<void> {
  const { positionals } = parseCommand(argv, {});
  if (positionals.length !== 1) throw new UsageError('usage: slink user password <email> (the new password on stdin)');
  await setPassword(deps, positionals[0]!, await passwordFromStdin(io));
}

export async function userCommand(deps: BaseDeps, argv: string[], io: CliIo): Promise<void> {
  const [verb, ...rest] = argv;
  if (verb === 'add') return addUser(deps, rest, io);
  if (verb === 'list') return listUsers(deps, rest, io);
  if (verb === 'password') return setUserPassword(deps, rest, io);
  throw new UsageError(`unknown user command "${verb ?? ''}" (try: user add, user list, user password)`);
}
