/** `slink backup <file>` */
import { resolve } from 'node:path';
import { backupDatabase } from '../db/backup';
import type { BaseDeps } from '../deps';
import { parseCommand, UsageError } from './args';
import type { CliIo } from './io';

export function backupCommand(deps: BaseDeps, argv: string[], io: CliIo): void {
  const { positionals } = parseCommand(argv, {});
  if (positionals.length !== 1) throw new UsageError('usage: slink backup <file>');
  const { path, bytes } = backupDatabase(deps.db.$client, resolve(positionals[0]!));
  io.out(`${path} ${bytes} bytes`);
}
