/**
 * The operator CLI against a SQLite file in a temporary folder (removed after the test file),
 * with assertions on exit code and output: `cli` runs it in this process (runCli with its
 * output, standard input and environment given), `slink` spawns the real entry point
 * (`bun run src/index.ts ...`) for what only a process shows (its exit code, its stdout and
 * stderr as written, `serve`).
 */
import { Database } from 'bun:sqlite';
import { afterAll, expect } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { format } from 'node:util';
import { runCli } from '../../src/cli';
import { BUN, cleanEnv, type RunResult, run } from './proc';

const dirs: string[] = [];
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'slink-cli-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `bun run src/index.ts <args>` against the SQLite file `db`. */
export function slink(
  db: string,
  args: string[],
  opts: { stdin?: string; env?: Record<string, string> } = {},
): Promise<RunResult> {
  return run([BUN, 'run', 'src/index.ts', ...args], {
    env: cleanEnv({ SLINK_DB: db, ...opts.env }),
    stdin: opts.stdin,
  });
}

/**
 * What `slink` returns, from runCli called in this process: its lines on stdout and stderr as
 * the process writes them (each ended by a newline), with whatever the console gets meanwhile
 * (a logger's lines: console.log and info to stdout, error and warn to stderr, as a process
 * prints them), standard input as given (empty when not), and the environment `slink` would
 * spawn it with (no SLINK_* of the test's own).
 */
export async function cli(
  db: string,
  args: string[],
  opts: { stdin?: string; env?: Record<string, string> } = {},
): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const toOut = (...parts: unknown[]) => {
    stdout += `${format(...parts)}\n`;
  };
  const toErr = (...parts: unknown[]) => {
    stderr += `${format(...parts)}\n`;
  };
  const saved = { log: console.log, info: console.info, error: console.error, warn: console.warn };
  Object.assign(console, { log: toOut, info: toOut, error: toErr, warn: toErr });
  try {
    const code = await runCli(
      args,
      { out: toOut, err: toErr, readStdin: async () => opts.stdin ?? '' },
      cleanEnv({ SLINK_DB: db, ...opts.env }),
    );
    return { code, stdout, stderr };
  } finally {
    Object.assign(console, saved);
    // The command closed its database, but SQLite finishes a close only once every prepared
    // statement is finalized, which happens when they are collected: until then the file keeps
    // its WAL, unlike after a process's exit. Collect now, so the file is left as a process leaves it.
    Bun.gc(true);
  }
}

/** The line a command prints on stderr when it created the database (test/cli.test.ts checks its wording). */
const CREATED_NOTE = /^slink: no database at [^\n]+: created a new one \([^\n]+\)\n$/;

/**
 * Asserts success with nothing on stderr (but the note that the command created the database,
 * which the first command on a fresh one prints) and returns stdout.
 */
export async function ok(result: Promise<RunResult>): Promise<string> {
  const r = await result;
  const stderr = CREATED_NOTE.test(r.stderr) ? '' : r.stderr;
  expect({ code: r.code, stderr }).toEqual({ code: 0, stderr: '' });
  return r.stdout;
}

/** Asserts a non-zero exit, nothing on stdout and exactly one line on stderr; returns that line. */
export async function fails(result: Promise<RunResult>): Promise<string> {
  const r = await result;
  expect(r.code).not.toBe(0);
  expect(r.stdout).toBe('');
  // Compared whole, so a failure shows what was printed.
  expect(r.stderr).toMatch(/^slink: [^\n]+\n$/);
  return r.stderr.trimEnd();
}

/**
 * Opens the SQLite file, runs `fn`, closes it. Read-only unless `readonly` is false: a file a
 * killed process left with its WAL needs a writable connection to recover it.
 */
export function inspect<T>(db: string, fn: (sqlite: Database) => T, readonly = true): T {
  const sqlite = new Database(db, { readonly });
  try {
    return fn(sqlite);
  } finally {
    sqlite.close();
  }
}

/** A fresh SQLite path in a temporary folder of its own (removed after the test file). */
export function freshDb(): string {
  return join(tempDir(), 'slink.db');
}

/**
 * A superuser (ops@example.com) and a write key for it, made with the operator CLI (in this
 * process) on `db` (or on the database `env` names: SLINK_DATABASE_URL); returns the key.
 */
export async function superuserWriteKey(db: string, env: Record<string, string> = {}): Promise<string> {
  await ok(cli(db, ['user', 'add', 'ops@example.com', '--superuser', '--password', PASSWORD], { env }));
  return (await ok(cli(db, ['key', 'create', '--user', 'ops@example.com', '--scope', 'write'], { env }))).trim();
}

/** Creates a link (to https://example.com/landing) through a running server's API; returns its id. */
export async function createLinkAt(base: string, key: string, slug: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ destination: 'https://example.com/landing', slug }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

export const ACC_LINE = /^acc_[A-Za-z0-9]+\n$/;
export const KEY_LINE = /^slk_[A-Za-z0-9]{40}\n$/;
export const PASSWORD = 'correct horse battery';
