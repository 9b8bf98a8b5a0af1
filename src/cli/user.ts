/** `slink user add <email> [--superuser] [--password <pw>]` */
import type { BaseDeps } from '../deps';
import { createAccount } from '../modules/auth/accounts';
import { option, parseArgs, UsageError } from './args';
import type { CliIo } from './io';

export async function userCommand(deps: BaseDeps, argv: string[], io: CliIo): Promise<void> {
  const [verb, ...rest] = argv;
  if (verb !== 'add') throw new UsageError(`unknown user command "${verb ?? ''}" (try: user add <email>)`);
  const args = parseArgs(rest, ['password'], ['superuser']);
  const [email, extra] = args.positionals;
  if (!email || extra !== undefined)
    throw new UsageError('usage: slink user add <email> [--superuser] [--password <pw>]');
  // Without --password the password comes from stdin, so it stays out of shell history.
  const password = option(args, 'password') ?? (await io.readStdin()).split(/\r?\n/)[0] ?? '';
  const account = await createAccount(deps, { email, password, superuser: args.options.has('superuser') });
  io.out(account.id);
}
