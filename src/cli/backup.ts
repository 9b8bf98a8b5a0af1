/** `slink backup <file>` */
import { resolve } from 'node:path';
import type { BaseDeps } from '../compose/deps';
import { parseCommand, UsageError } from './args';
import type { CliIo } from './io';

export async function backupCommand(deps: BaseDeps, argv: string[], io: CliIo): Promise<void> {
  const { positionals } = parseCommand(argv, {});
  if (positionals.length !== 1) throw new UsageError('usage: slink backup <file>');
  const { path, bytes } = await deps.stores.backup(resolve(positionals[0]!));
  io.out(`${path} ${bytes} bytes`);
}
