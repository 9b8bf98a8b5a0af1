/**
 * A consistent copy of the live database: `VACUUM INTO` reads one snapshot in one read
 * transaction (WAL lets the service keep writing meanwhile) and writes it as a new, compacted
 * database file with nothing pending in a WAL. The copy opens as any Slink database.
 */
import type { Database } from 'bun:sqlite';
import { existsSync, statSync } from 'node:fs';
import { AppError } from '../lib/errors';

export function backupDatabase(sqlite: Database, target: string): { path: string; bytes: number } {
  // VACUUM INTO refuses a non-empty file too; this says why in Slink's words, and an empty one is refused alike.
  if (existsSync(target)) throw new AppError('conflict', `${target} already exists: a backup never overwrites a file`);
  sqlite.query('VACUUM INTO ?').run(target);
  return { path: target, bytes: statSync(target).size };
}
