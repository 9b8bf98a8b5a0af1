/**
 * The dashboard as an operator runs it: the service started as its own process (from source, or
 * dist/slink) on a loopback port of an empty data folder, its log read while it runs, and the
 * first steps a person takes in Chromium: open the setup address from the log, create the first
 * superuser, sign out, sign in through the form, and land on the empty links list.
 */
import { expect } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { freePort, type RunningProcess, start, waitForLog, waitHealthy } from './proc';

/** A desktop Chrome's user agent: what a person's browser sends (Chromium headless says HeadlessChrome, a bot). */
export const DESKTOP_CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

export interface ServedProcess {
  server: RunningProcess;
  /** The app (and short) host: http://127.0.0.1:<port>, as SLINK_SHORT_HOST says. */
  origin: string;
  /** The working folder; the database is ./data/slink.db in it (the default SLINK_DB). */
  dir: string;
  /** The environment it runs with (for CLI subcommands on the same database). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * Starts `cmd serve` in `dir` (a new empty folder unless given) with `env` plus the port and
 * hosts; clicks are flushed every 100 ms so a click shows within a poll or two.
 */
export async function serveProcess(cmd: string[], env: Record<string, string>, dir?: string): Promise<ServedProcess> {
  dir ??= mkdtempSync(join(tmpdir(), 'slink-served-'));
  const port = freePort();
  const origin = `http://127.0.0.1:${port}`;
  const fullEnv = {
    ...env,
    SLINK_PORT: String(port),
    SLINK_HOSTNAME: '127.0.0.1',
    SLINK_SHORT_HOST: origin,
    SLINK_FLUSH_MS: '100',
  };
  const server = start([...cmd, 'serve'], port, { cwd: dir, env: fullEnv });
  await waitHealthy(server, 30_000);
  return {
    server,
    origin,
    dir,
    env: fullEnv,
    async close() {
      const code = await server.stop();
      rmSync(dir, { recursive: true, force: true });
      expect(code).toBe(0);
    },
  };
}

/** The address the service logs at start while no account exists, read from its log. */
export async function setupAddressFromLog(served: ServedProcess): Promise<string> {
  const line = await waitForLog(served.server, /no account exists yet: create the first superuser at (\S+)/);
  return line[1]!;
}

/** Fills the Email/Password form and presses its button. */
export async function fillCredentials(page: Page, email: string, password: string, button: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: button }).click();
}

/**
 * Setup from the logged address, then sign out and sign in again through the form: ends on the
 * empty links list with `New link` enabled.
 */
export async function firstSteps(page: Page, served: ServedProcess, email: string, password: string): Promise<void> {
  const address = await setupAddressFromLog(served);
  expect(address).toStartWith(`${served.origin}/app/setup?token=`);
  await page.goto(address);
  await page.getByRole('heading', { name: 'Set up Slink' }).waitFor();
  await fillCredentials(page, email, password, 'Create account');
  // Setup signs the new superuser in and opens the links list.
  await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await fillCredentials(page, email, password, 'Sign in');
  await page.getByRole('heading', { name: 'No links yet' }).waitFor();
  expect(await page.getByRole('button', { name: 'New link' }).isEnabled()).toBe(true);
  expect(new URL(page.url()).pathname).toBe('/app');
}
