/**
 * PostgreSQL migrations: the SQL files of ./migrations, embedded in the code (as the SQLite
 * engine's are, so dist/slink carries them), applied in order in one transaction under an
 * advisory lock: nodes starting together wait for each other, and a migration that fails leaves
 * nothing behind (PostgreSQL's DDL is transactional). `slink_migrations` records each applied
 * version with its checksum; a recorded migration whose text changed is refused.
 */
import type { Pg } from './client';
import { MIGRATE_LOCK } from './locks';
import m0001 from './migrations/0001_init.sql' with { type: 'text' };
import m0002 from './migrations/0002_clicks.sql' with { type: 'text' };
import m0003 from './migrations/0003_click_tail_order.sql' with { type: 'text' };
import m0004 from './migrations/0004_click_deltas.sql' with { type: 'text' };
import m0005 from './migrations/0005_change_feed.sql' with { type: 'text' };
import m0006 from './migrations/0006_shared_windows.sql' with { type: 'text' };
import m0007 from './migrations/0007_click_limits.sql' with { type: 'text' };
import m0008 from './migrations/0008_link_redirect_options.sql' with { type: 'text' };
import m0009 from './migrations/0009_link_rules.sql' with { type: 'text' };
import m0010 from './migrations/0010_click_target_rule.sql' with { type: 'text' };
import m0011 from './migrations/0011_webhooks.sql' with { type: 'text' };
import m0012 from './migrations/0012_webhook_failures_and_rotation.sql' with { type: 'text' };
import m0013 from './migrations/0013_link_fallback_visits.sql' with { type: 'text' };
import m0014 from './migrations/0014_domains.sql' with { type: 'text' };
import m0015 from './migrations/0015_account_roles.sql' with { type: 'text' };
import m0016 from './migrations/0016_access_limits.sql' with { type: 'text' };
import m0017 from './migrations/0017_audit_log.sql' with { type: 'text' };
import m0018 from './migrations/0018_audit_log_filters.sql' with { type: 'text' };
import m0019 from './migrations/0019_invites.sql' with { type: 'text' };
import m0020 from './migrations/0020_link_days_rolled_up.sql' with { type: 'text' };
import m0021 from './migrations/0021_imports.sql' with { type: 'text' };
import m0022 from './migrations/0022_import_history.sql' with { type: 'text' };
import m0023 from './migrations/0023_import_visit_count.sql' with { type: 'text' };
import m0024 from './migrations/0024_import_takeover.sql' with { type: 'text' };
import m0025 from './migrations/0025_imported_days.sql' with { type: 'text' };
import m0026 from './migrations/0026_read_through_misses.sql' with { type: 'text' };
import m0027 from './migrations/0027_click_rank.sql' with { type: 'text' };
import m0028 from './migrations/0028_import_reruns.sql' with { type: 'text' };
import m0029 from './migrations/0029_import_existing.sql' with { type: 'text' };

export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

/** Every migration, in order. test/db/postgres-migrate.test.ts checks that each file of ./migrations is here. */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  { version: 1, name: '0001_init', sql: m0001 },
  { version: 2, name: '0002_clicks', sql: m0002 },
  { version: 3, name: '0003_click_tail_order', sql: m0003 },
  { version: 4, name: '0004_click_deltas', sql: m0004 },
  { version: 5, name: '0005_change_feed', sql: m0005 },
  { version: 6, name: '0006_shared_windows', sql: m0006 },
  { version: 7, name: '0007_click_limits', sql: m0007 },
  { version: 8, name: '0008_link_redirect_options', sql: m0008 },
  { version: 9, name: '0009_link_rules', sql: m0009 },
  { version: 10, name: '0010_click_target_rule', sql: m0010 },
  { version: 11, name: '0011_webhooks', sql: m0011 },
  { version: 12, name: '0012_webhook_failures_and_rotation', sql: m0012 },
  { version: 13, name: '0013_link_fallback_visits', sql: m0013 },
  { version: 14, name: '0014_domains', sql: m0014 },
  { version: 15, name: '0015_account_roles', sql: m0015 },
  { version: 16, name: '0016_access_limits', sql: m0016 },
  { version: 17, name: '0017_audit_log', sql: m0017 },
  { version: 18, name: '0018_audit_log_filters', sql: m0018 },
  { version: 19, name: '0019_invites', sql: m0019 },
  { version: 20, name: '0020_link_days_rolled_up', sql: m0020 },
  { version: 21, name: '0021_imports', sql: m0021 },
  { version: 22, name: '0022_import_history', sql: m0022 },
  { version: 23, name: '0023_import_visit_count', sql: m0023 },
  { version: 24, name: '0024_import_takeover', sql: m0024 },
  { version: 25, name: '0025_imported_days', sql: m0025 },
  { version: 26, name: '0026_read_through_misses', sql: m0026 },
  { version: 27, name: '0027_click_rank', sql: m0027 },
  { version: 28, name: '0028_import_reruns', sql: m0028 },
  { version: 29, name: '0029_import_existing', sql: m0029 },
];

function checksum(sql: string): string {
  return new Bun.CryptoHasher('sha256').update(sql).digest('hex');
}

/** Applies the pending migrations; returns how many it applied. */
export async function migratePostgres(sql: Pg, migrations: readonly PgMigration[] = PG_MIGRATIONS): Promise<number> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATE_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS slink_migrations (
      version int PRIMARY KEY,
      name text NOT NULL,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`;
    const applied = new Map<number, string>();
    for (const row of await tx`SELECT version, checksum FROM slink_migrations`) {
      applied.set(row.version as number, row.checksum as string);
    }
    let count = 0;
    for (const m of migrations) {
      const sum = checksum(m.sql);
      const recorded = applied.get(m.version);
      if (recorded !== undefined) {
        if (recorded !== sum) {
          throw new Error(`migration ${m.name} was applied with a different text: this database is not this release's`);
        }
        continue;
      }
      await tx.unsafe(m.sql);
      await tx`INSERT INTO slink_migrations (version, name, checksum) VALUES (${m.version}, ${m.name}, ${sum})`;
      count++;
    }
    return count;
  });
}
