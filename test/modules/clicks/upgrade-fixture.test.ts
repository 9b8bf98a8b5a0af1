/**
 * The old-release fixture (test/fixtures/old-release-db.ts) is what the upgrade tests compare
 * against a committed file of answers, so it must be the same rows every time it is built.
 */
import { Database } from 'bun:sqlite';
import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildOldReleaseDb } from '../../fixtures/old-release-db';

const dir = mkdtempSync(join(tmpdir(), 'slink-fixture-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every row of every table, in rowid order, as one digest per table. */
function dump(path: string): Record<string, string> {
  const sqlite = new Database(path, { readonly: true });
  try {
    const tables = sqlite
      .query<{ name: string }, []>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all();
    const out: Record<string, string> = {};
    for (const { name } of tables) {
      const rows = sqlite.query(`SELECT * FROM "${name}" ORDER BY rowid`).values();
      const hasher = new Bun.CryptoHasher('sha256');
      for (const row of rows) hasher.update(JSON.stringify(row, (_k, v) => (v instanceof Uint8Array ? [...v] : v)));
      out[name] = `${rows.length} ${hasher.digest('hex')}`;
    }
    return out;
  } finally {
    sqlite.close();
  }
}

test('the same seed builds the same rows; another seed other clicks', () => {
  const a = buildOldReleaseDb(join(dir, 'a.db'));
  const b = buildOldReleaseDb(join(dir, 'b.db'));
  buildOldReleaseDb(join(dir, 'c.db'), { seed: 7 });
  expect(a).toEqual(b);
  expect(a.clicks).toBe(3000);
  const [da, db, dc] = [dump(join(dir, 'a.db')), dump(join(dir, 'b.db')), dump(join(dir, 'c.db'))];
  expect(da).toEqual(db);
  expect(da.clicks).toStartWith('3000 ');
  expect(da.__drizzle_migrations).toStartWith('4 ');
  expect(dc.clicks).not.toBe(da.clicks);
});
