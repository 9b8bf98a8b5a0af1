/**
 * Operator subcommands (docs/behaviour.md, "Operator CLI"). They call module services, never
 * SQL. Exit 0 on success; otherwise a one-line message on stderr and exit 1 (2 for usage).
 */
import { existsSync } from 'node:fs';
import type { BaseDeps } from '../compose/deps';
import { ConfigError, configHelp, loadConfig } from '../config';
import { DatabaseFileError, explainDatabaseError } from '../db/open';
import { PostgresConnectError } from '../db/postgres/client';
import { systemClock } from '../lib/clock';
import { AppError } from '../lib/errors';
import { consoleLogger } from '../lib/log';
import { printable } from '../lib/text';
import { type OpenedStorage, openSqliteStorage, openStorage } from '../storage';
import { UsageError } from './args';
import { backupCommand } from './backup';
import { CopyFailed, copyToCommand } from './copy-to';
import { ImportNotDone, importCommand } from './import';
import { type CliIo, processIo } from './io';
import { keyCommand } from './key';
import { migrateCommand } from './migrate';
import { userCommand } from './user';

const HELP = `slink: short links with click analytics, in one executable

Usage:
  slink [serve]                                   start the service
  slink user add <email> [--role admin|editor|viewer] [--superuser] [--projects <id,id>] [--password <pw>]
                                                  create an account (password read from stdin when not given)
  slink user list [--json]                        list accounts: email, superuser, created, last sign-in, role
  slink user password <email>                     set a new password, read from stdin; ends that account's sessions
  slink user invite <email> [--role admin|editor|viewer] [--projects <id,id>] [--json]
                                                  print a one-time address, valid 7 days, where they choose a password
  slink key create --user <email> --scope read|write|create [--name <n>] [--expires-in <dur>]
                  [--projects <id,id>] [--domains <host,host>] [--json]
                                                  create an API key; prints the key once (dur: 90s, 15m, 12h, 30d)
  slink key revoke <keyId>                        revoke a key
  slink key list [--user <email>] [--json]        list keys (never the secret)
  slink migrate                                   upgrade the database (schema, and clicks stored by an older
                                                  release), printing progress; serve does it at start too
  slink backup <file>                             a consistent copy of the live database (never overwrites)
  slink copy-to <postgres-url> [--batch <rows>]   copy the database (the service stopped) into an empty
                                                  PostgreSQL database, with progress, then verify it
  slink import <source> [--url <origin>] [--token <t>] [--file <path>] [--domain <host>] [--project <id>]
               [--history clicks|daily|none] [--on-conflict skip|rename] [--dry-run]
                                                  import links and their history (shlink, bitly, kutt, yourls,
                                                  dub, csv, slink); progress on stderr, summary on stdout
  slink --help                                    this help

Environment:
${configHelp()}`;

/** Said on stderr when a command found no database at SLINK_DB and created one. */
export function createdDatabaseNote(path: string): string {
  return `slink: no database at ${path}: created a new one (set SLINK_DB, or SLINK_DATABASE_URL for PostgreSQL, to use another)`;
}

const COMMANDS = new Set(['user', 'key', 'migrate', 'backup', 'copy-to', 'import']);

/** Runs one subcommand; `io` and `env` are the process's unless given (the tests give their own). */
export async function runCli(
  argv: string[],
  io: CliIo = processIo,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    io.out(HELP);
    return 0;
  }
  let storage: OpenedStorage | null = null;
  let dbPath: string | null = null;
  try {
    if (!COMMANDS.has(command ?? '')) throw new UsageError(`unknown command "${command}" (see slink --help)`);
    const config = loadConfig(env);
    if (command === 'copy-to') {
      // The source is the SQLite file at SLINK_DB, whichever engine the configuration names.
      dbPath = config.dbPath;
      // Copying a file that is not there would create an empty database and copy nothing.
      if (dbPath !== ':memory:' && !existsSync(dbPath)) {
        throw new CopyFailed(`${dbPath} does not exist: set SLINK_DB to the database to copy`);
      }
      storage = openSqliteStorage(dbPath);
    } else {
      if (!config.databaseUrl) dbPath = config.dbPath;
      const creating = dbPath !== null && dbPath !== ':memory:' && !existsSync(dbPath);
      // Connection attempts are logged on stderr: stdout carries only the command's answer.
      storage = await openStorage(config, { info: (line) => io.err(line), error: (line) => io.err(line) });
      // A command run without the service's SLINK_DB or SLINK_DATABASE_URL would otherwise work
      // on a new, empty database and say nothing; stdout stays the command's answer alone.
      if (creating) io.err(createdDatabaseNote(dbPath as string));
    }
    const deps: BaseDeps = { db: storage.db, stores: storage.stores, config, clock: systemClock, log: consoleLogger };
    if (command === 'user') await userCommand(deps, rest, io);
    else if (command === 'migrate') await migrateCommand(deps, rest, io);
    else if (command === 'backup') await backupCommand(deps, rest, io);
    else if (command === 'copy-to') await copyToCommand(deps, rest, io);
    else if (command === 'import') await importCommand(deps, rest, io);
    else await keyCommand(deps, rest, io);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`slink: ${err.message}`);
      return 2;
    }
    // A corrupt file or a full disk found by the command itself (not at open) is said the same way.
    const explained =
      dbPath === null ? err : explainDatabaseError(err, dbPath, 'the command cannot write the database');
    const known =
      explained instanceof AppError ||
      explained instanceof ConfigError ||
      explained instanceof DatabaseFileError ||
      explained instanceof PostgresConnectError ||
      explained instanceof CopyFailed ||
      explained instanceof ImportNotDone;
    const message = known
      ? (explained as Error).message
      : `unexpected error: ${explained instanceof Error ? explained.message : String(explained)}`;
    // Always one line on stderr (docs/behaviour.md, "Operator CLI").
    // A message may carry what a file or a source wrote (a CSV's header): shown, never obeyed.
    io.err(`slink: ${printable(message.split('\n')[0]!)}`);
    return 1;
  } finally {
    await storage?.close();
  }
}
