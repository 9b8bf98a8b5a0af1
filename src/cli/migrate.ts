/**
 * `slink migrate`: applies the schema migrations and converts clicks recorded by an older
 * release to the current storage (docs/operations.md, "Upgrading"), printing progress. `serve`
 * does the same at start; running it first keeps the upgrade's minutes out of the service's
 * start. Safe to run again, and to interrupt: a second run carries on where the first stopped.
 */
import type { BaseDeps } from '../compose/deps';
import { UsageError } from './args';
import type { CliIo } from './io';

export async function migrateCommand(deps: BaseDeps, args: string[], io: CliIo): Promise<void> {
  if (args.length > 0) throw new UsageError('migrate takes no arguments');
  // The migrations already ran when the database was opened (runCli).
  const upgraded = await deps.stores.upgrade((line) => io.out(line));
  io.out(upgraded ? 'database upgraded' : 'database is up to date');
}
