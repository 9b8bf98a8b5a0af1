/**
 * Applies the migrations embedded in the code (see scripts/embed-migrations.ts) with drizzle's
 * own dialect migrator, so the hashes and the __drizzle_migrations table are exactly what the
 * folder-based migrator would write. Works from source, in tests and inside dist/slink.
 */
import type { MigrationMeta } from 'drizzle-orm/migrator';
import type { Db } from './client';
import { journal, migrationFiles } from './migrations.gen';

export function embeddedMigrations(): MigrationMeta[] {
  return journal.entries.map((entry) => {
    const file = migrationFiles.find((m) => m.tag === entry.tag);
    if (!file) throw new Error(`migration ${entry.tag} is in the journal but not embedded`);
    return {
      sql: file.sql.split('--> statement-breakpoint'),
      bps: entry.breakpoints,
      folderMillis: entry.when,
      hash: new Bun.CryptoHasher('sha256').update(file.sql).digest('hex'),
    };
  });
}

export function migrateDatabase(db: Db): void {
  // `dialect` and `session` are internal to drizzle's public type; the stock migrator uses them too.
  const internals = db as unknown as { dialect: { migrate(m: MigrationMeta[], s: unknown): void }; session: unknown };
  internals.dialect.migrate(embeddedMigrations(), internals.session);
}
