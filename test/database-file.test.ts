/**
 * A file at SLINK_DB that is not a usable Slink database (docs/operations.md, "The database
 * file"): the server and every subcommand that opens the database refuse it with one line that
 * names the file and says what to do, and leave it as it was. An empty file is not taken for a
 * new installation.
 */
import { Database } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import { closeSync, openSync, readdirSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { fails, freshDb, inspect, ok, slink, superuserWriteKey } from './helpers/cli';
import { BUN, cleanEnv, run } from './helpers/proc';

const BACKUP_HINT = 'restore the last backup in its place (docs/operations.md, "Backups")';

/** `slink serve` (no port is opened: the start stops first) and three subcommands that open the database. */
const COMMANDS = [['serve'], ['user', 'list'], ['key', 'list', '--json'], ['backup', '/tmp/never-written.db']];

async function everyCommandFails(db: string, line: string): Promise<void> {
  for (const args of COMMANDS) {
    const r =
      args[0] === 'serve'
        ? await run([BUN, 'run', 'src/index.ts', 'serve'], { env: cleanEnv({ SLINK_DB: db, SLINK_PORT: '0' }) })
        : await slink(db, args);
    expect({ args, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      args,
      code: 1,
      stdout: '',
      stderr: `slink: ${line}\n`,
    });
  }
}

describe('refused with one line naming the file', () => {
  test('an empty file (0 bytes) is not taken for a new installation, and stays as it is', async () => {
    const db = freshDb();
    writeFileSync(db, '');
    await everyCommandFails(
      db,
      `${db} is an empty file (0 bytes), not a Slink database: if it should hold your data, ${BACKUP_HINT}; to start a new installation, delete it`,
    );
    expect(statSync(db).size).toBe(0);
    expect(readdirSync(dirname(db))).toEqual(['slink.db']);
  }, 60_000);

  test('a file that is not a SQLite database', async () => {
    const db = freshDb();
    const bytes = new Uint8Array(64 * 1024).map((_, i) => (i * 7919) % 251);
    writeFileSync(db, bytes);
    await everyCommandFails(db, `${db} is not a Slink database or is corrupt (file is not a database): ${BACKUP_HINT}`);
    expect(new Uint8Array(readFileSync(db))).toEqual(bytes);
  }, 60_000);

  test('a Slink database whose schema page is damaged', async () => {
    const db = freshDb();
    await superuserWriteKey(db);
    const fd = openSync(db, 'r+');
    // Page 1 after the 100-byte file header: the b-tree page that holds the schema.
    writeSync(fd, new Uint8Array(200).fill(0xff), 0, 200, 100);
    closeSync(fd);
    await everyCommandFails(
      db,
      `${db} is not a Slink database or is corrupt (database disk image is malformed): ${BACKUP_HINT}`,
    );
  }, 60_000);

  test('a SQLite database that is not Slink’s is not migrated into', async () => {
    const db = freshDb();
    const other = new Database(db);
    other.exec("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine')");
    other.close();
    await everyCommandFails(
      db,
      `${db} is a SQLite database but not a Slink database (it has tables, none of Slink's migrations): check SLINK_DB`,
    );
    // Untouched: no Slink table, and still in the journal mode its owner chose.
    expect(inspect(db, (s) => s.query("SELECT name FROM sqlite_master WHERE type = 'table'").all())).toEqual([
      { name: 'notes' },
    ]);
    expect(inspect(db, (s) => s.query('PRAGMA journal_mode').get())).toEqual({ journal_mode: 'delete' });
  }, 60_000);
});

test('damage a subcommand meets after opening is said the same way', async () => {
  const db = freshDb();
  await superuserWriteKey(db);
  const root = inspect(db, (s) => s.query("SELECT rootpage FROM sqlite_master WHERE name = 'accounts'").get()) as {
    rootpage: number;
  };
  const fd = openSync(db, 'r+');
  // A leaf page whose header claims more cells than the page holds.
  writeSync(
    fd,
    new Uint8Array([0x0d, 0xff, 0xff, 0xff, 0x00, 0x77, ...new Array(200).fill(0xab)]),
    0,
    206,
    (root.rootpage - 1) * 4096,
  );
  closeSync(fd);
  expect(await fails(slink(db, ['user', 'list']))).toBe(
    `slink: ${db} is not a Slink database or is corrupt (database disk image is malformed): ${BACKUP_HINT}`,
  );
});

test('a path with no file is a new installation', async () => {
  const db = freshDb();
  expect(await ok(slink(db, ['user', 'list', '--json']))).toBe('[]\n');
  expect(statSync(db).size).toBeGreaterThan(0);
});
