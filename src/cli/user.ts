/** `slink user add <email> [--superuser] [--password <pw>]` */
import type { BaseDeps } from '../deps';
import { createAccount } from '../modules/auth/accounts';
import { parseCommand, UsageError } from './args';
import type { CliIo } from './io';

export async function userCommand(deps: BaseDeps, argv: string[], io: CliIo): Promise<void> {
  const [verb, ...rest] = argv;
  if (verb !== 'add') throw new UsageError(`unknown user command "${verb ?? ''}" (try: user add <email>)`);
  const { values, positionals } = parseCommand(rest, { password: { type: 'string' }, superuser: { type: 'boolean' } });
  const [email, extra] = positionals;
  if (!email || extra !== undefined)
    throw new UsageError('usage: slink user add <email> [--superuser] [--password <pw>]');
  // Without --password the password comes from stdin, so it stays out of shell history.
  const password = values.password ?? (await io.readStdin()).split(/\r?\n/)[0] ?? '';
  const account = await createAccount(deps, { email, password, superuser: values.superuser === true });
  io.out(account.id);
}
