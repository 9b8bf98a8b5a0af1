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

/**
 * How many embedded migrations the database has not applied: drizzle applies those newer than
 * the last one it recorded (by the migration folder's time), as this counts them.
 */
export function pendingMigrations(db: Db): number {
  const table = db.$client
    .query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
    .get();
  const last =
    table === null
      ? null
      : db.$client.query<{ at: number | null }, []>('SELECT max(created_at) AS at FROM __drizzle_migrations').get()!.at;
  return journal.entries.filter((entry) => last === null || entry.when > Number(last)).length;
}

/** Applies the pending migrations; with none pending it writes nothing (a start on a full disk needs that). */
export function migrateDatabase(db: Db): void {
  if (pendingMigrations(db) === 0) return;
  // `dialect` and `session` are internal to drizzle's public type; the stock migrator uses them too.
  const internals = db as unknown as { dialect: { migrate(m: MigrationMeta[], s: unknown): void }; session: unknown };
  internals.dialect.migrate(embeddedMigrations(), internals.session);
}
