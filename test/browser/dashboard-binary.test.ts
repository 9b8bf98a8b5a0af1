/**
 * dist/slink alone in an empty folder serves the dashboard, on SQLite and on PostgreSQL: the
 * setup address from its log, the first superuser, sign-out and sign-in through the form, the
 * empty links list, all from the assets embedded in the binary, in Chromium with no internet.
 */
import { afterAll, beforeAll, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { binaryAlone, buildBinary } from '../helpers/binary';
import { launchBrowser } from '../helpers/browser';
import { expectCleanPage, offlinePage } from '../helpers/dashboard-browser';
import { firstSteps, type ServedProcess, serveProcess } from '../helpers/dashboard-process';
import { databaseEnv, forEachEngine } from '../helpers/engines';

let served: ServedProcess;
let browser: Browser;

forEachEngine((engine) => {
  beforeAll(async () => {
    await buildBinary();
    // Only PATH (without Bun's folder): no Bun, no node_modules, no source tree.
    served = await serveProcess(['./slink'], { PATH: '/usr/bin:/bin', ...(await databaseEnv(engine)) }, binaryAlone());
    browser = await launchBrowser();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await served?.close();
  }, 30_000);

  test('first-run setup, sign-in through the form and the empty links list, from dist/slink', async () => {
    const p = await offlinePage(browser);
    await firstSteps(p.page, served, 'first@example.com', 'a long first password');
    await expectCleanPage(p);
    await p.page.close();
  }, 60_000);
});
