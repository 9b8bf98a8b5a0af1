/**
 * dist/slink alone in an empty folder serves the dashboard: the setup address from its log, the
 * first superuser, sign-out and sign-in through the form, the empty links list, all from the
 * assets embedded in the binary, in Chromium with no internet. On SQLite: the pages and assets
 * are the same on either engine; dist/slink on PostgreSQL (its embedded migrations, setup, keys,
 * serve) is test/binary.test.ts's, and the dashboard on PostgreSQL is dashboard-journey's.
 */
import { afterAll, beforeAll, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { binaryAlone, buildBinary } from '../helpers/binary';
import { launchBrowser } from '../helpers/browser';
import { expectCleanPage, offlinePage } from '../helpers/dashboard-browser';
import { firstSteps, type ServedProcess, serveProcess } from '../helpers/dashboard-process';

let served: ServedProcess;
let browser: Browser;

beforeAll(async () => {
  await buildBinary();
  // Only PATH (without Bun's folder): no Bun, no node_modules, no source tree.
  served = await serveProcess(['./slink'], { PATH: '/usr/bin:/bin' }, binaryAlone());
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
