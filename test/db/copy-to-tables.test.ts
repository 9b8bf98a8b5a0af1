/**
 * `slink copy-to` carries every table (docs/operations.md, "Moving to PostgreSQL"): the tables of
 * both engines after their migrations, compared with each other and with the schema, so that a
 * table one engine has and the other lacks, or a table of the schema that the copy leaves
 * behind, fails here unless src/db/copy-to/tables.ts names it and says why.
 */
import { describe, expect, test } from 'bun:test';
import { getTableName } from 'drizzle-orm';
import { getTableConfig } from 'drizzle-orm/sqlite-core';
import { openDatabase } from '../../src/db/client';
import { STEPS } from '../../src/db/copy-to/state';
import {
  DATA_TABLES,
  PLAIN_TABLES,
  POSTGRES_ONLY,
  pgSequenceOf,
  SCHEMA_TABLES,
  SPECIAL_TABLES,
  SQLITE_ONLY,
} from '../../src/db/copy-to/tables';
import { migrateDatabase } from '../../src/db/migrate';
import { openPostgres } from '../../src/db/postgres/client';
import { freshPostgresUrl } from '../helpers/postgres';

type Columns = Map<string, string[]>;

function sqliteColumns(): Columns {
  const db = openDatabase(':memory:');
  migrateDatabase(db);
  const rows = db.$client
    .query<{ t: string; c: string }, []>(
      `SELECT m.name AS t, p.name AS c FROM sqlite_master m, pragma_table_info(m.name) p
       WHERE m.type = 'table' ORDER BY m.name, p.name`,
    )
    .all();
  db.$client.close();
  return group(rows);
}

async function postgresColumns(url: string): Promise<Columns> {
  const sql = openPostgres(url, 1);
  try {
    // Not the generated columns (link_counters.click_rank): PostgreSQL computes them, copy-to writes none.
    const rows = await sql`SELECT table_name AS t, column_name AS c FROM information_schema.columns
      WHERE table_schema = current_schema() AND is_generated = 'NEVER' ORDER BY table_name, column_name`;
    return group(rows);
  } finally {
    await sql.close();
  }
}

function group(rows: { t: string; c: string }[]): Columns {
  const out: Columns = new Map();
  for (const { t, c } of rows) out.set(t, [...(out.get(t) ?? []), c]);
  return out;
}

const schemaNames = SCHEMA_TABLES.map((t) => getTableName(t));
const without = (names: Iterable<string>, left: object) => [...names].filter((n) => !(n in left)).sort();

describe('copy-to carries every table', () => {
  test('both engines have the same tables after their migrations, but those named as one engine’s own', async () => {
    const url = await freshPostgresUrl();
    const sqlite = sqliteColumns();
    const pg = await postgresColumns(url);
    expect(without(sqlite.keys(), SQLITE_ONLY)).toEqual(without(pg.keys(), POSTGRES_ONLY));
    // No stale names: each engine's own tables exist on it, and on it alone.
    for (const name of Object.keys(SQLITE_ONLY))
      expect({ name, sqlite: sqlite.has(name), pg: pg.has(name) }).toEqual({ name, sqlite: true, pg: false });
    for (const name of Object.keys(POSTGRES_ONLY))
      expect({ name, sqlite: sqlite.has(name), pg: pg.has(name) }).toEqual({ name, sqlite: false, pg: true });
    // SQLite's tables are the schema's (drizzle's migrations are generated from it), its own bookkeeping aside.
    expect([...sqlite.keys()].filter((n) => !['__drizzle_migrations', 'sqlite_sequence'].includes(n)).sort()).toEqual(
      [...schemaNames].sort(),
    );
    // A table copied row for row has the same columns on both.
    for (const { name } of PLAIN_TABLES)
      expect({ name, columns: pg.get(name) }).toEqual({ name, columns: sqlite.get(name) });

    // Ids a sequence hands out on PostgreSQL go on after the copied ones: copy-to finds each sequence.
    const sql = openPostgres(url, 1);
    try {
      const sequences = await Promise.all(
        PLAIN_TABLES.filter((t) => t.autoIncrement).map(async (t) => [t.name, await pgSequenceOf(sql, t)]),
      );
      expect(sequences.length).toBeGreaterThanOrEqual(4);
      for (const [name, sequence] of sequences)
        expect({ name, sequence }).toEqual({ name, sequence: expect.any(String) });
    } finally {
      await sql.close();
    }
  }, 60_000);

  test('every table of the schema is copied, by a step of its own or row for row; only those said are left behind', () => {
    const plain = PLAIN_TABLES.map((t) => t.name);
    for (const name of ['webhooks', 'webhook_events', 'webhook_deliveries', 'webhook_attempts']) {
      expect(plain).toContain(name);
    }
    const special = Object.keys(SPECIAL_TABLES);
    // A special table is a known one, and not copied twice.
    for (const name of special)
      expect({ name, schema: schemaNames.includes(name), plain: plain.includes(name) }).toEqual({
        name,
        schema: true,
        plain: false,
      });
    expect([...plain, ...special].sort()).toEqual([...schemaNames].sort());
    // Handled by a step of their own: each names it; left behind: exactly these, each for a reason given.
    const left = special.filter((name) => SPECIAL_TABLES[name]!.startsWith('none:'));
    expect(left.sort()).toEqual(['click_imports', 'clicks', 'event_listeners', 'link_changes']);
    for (const name of special.filter((n) => !left.includes(n))) {
      const step = SPECIAL_TABLES[name]!.match(/^the (\w+) step/)?.[1];
      expect({ name, step: STEPS.includes(step ?? '') }).toEqual({ name, step: true });
    }
    // Every plain table is a step, after the tables its foreign keys name.
    expect(STEPS.slice(0, plain.length)).toEqual(plain);
    for (const table of SCHEMA_TABLES) {
      const name = getTableName(table);
      if (!plain.includes(name)) continue;
      for (const fk of getTableConfig(table).foreignKeys) {
        const target = getTableName(fk.reference().foreignTable);
        expect({ name, after: plain.indexOf(target) < plain.indexOf(name) }).toEqual({ name, after: true });
      }
    }
    // A target holding any of the workspace's data is not empty: the webhooks and their outbox too.
    for (const name of [...plain, 'rollups', 'click_blocks', 'click_tail', 'click_uniques'])
      expect(DATA_TABLES).toContain(name);
  });
});
