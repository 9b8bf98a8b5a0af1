/**
 * An export cut short by its link's deletion must not end like a complete one: the server
 * aborts the response before the chunked body's last chunk, so an HTTP client (curl here, on a
 * spawned server whose exports read a page ahead: SQLite's export Worker, PostgreSQL's async
 * pages) reports an incomplete transfer instead of a 200 with fewer rows. An export that ends
 * normally still ends normally. On both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../../../src/db/address';
import { EXPORT_PAGE } from '../../../src/modules/analytics/export-cursor';
import { api, disposeTestApp, makeKey, makeTestApp, T0 } from '../../helpers/app';
import { freshDb, tempDir } from '../../helpers/cli';
import { forEachEngine } from '../../helpers/engines';
import { BUN, cleanEnv, freePort, type RunningProcess, start, waitHealthy } from '../../helpers/proc';
import { insertStoredClicks } from '../../helpers/stored-clicks';

/**
 * Far more than the pages the server can read ahead into socket buffers before the delete. The
 * fixture has raw clicks only (no rollups), so exports ask for its window explicitly.
 */
const CLICKS = 100_000;
const HEADER =
  'id,linkId,slug,timestamp,variantCode,variantKnown,destination,params,country,city,device,os,browser,referrer,trafficType,language,bot,rule,domain';

forEachEngine((engine: Engine) => {
  describe('an export whose link is deleted while it runs (spawned server, curl)', () => {
    let server: RunningProcess;
    let key: string;
    let big: { id: string; slug: string };
    let small: { id: string; slug: string };

    beforeAll(async () => {
      // The links and a fixture of raw clicks, made in-process before the server starts on the
      // same database (the SQLite file, or the PostgreSQL database).
      const db = freshDb();
      const t = await makeTestApp({ SLINK_DB: db }, { engine });
      key = (await makeKey(t, 'write', { superuser: true })).key;
      const made = async (slug: string) => {
        const res = await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/landing', slug } });
        expect(res.status).toBe(201);
        return res.body as { id: string; slug: string };
      };
      big = await made('big');
      small = await made('small');
      await insertStoredClicks(t, big.id, CLICKS, T0);
      await insertStoredClicks(t, small.id, 10, T0);
      const address = t.deps.stores.address;
      await disposeTestApp(t);
      const port = freePort();
      server = start([BUN, 'run', 'src/index.ts', 'serve'], port, {
        env: cleanEnv({
          SLINK_DB: db,
          ...(address.engine === 'postgres' ? { SLINK_DATABASE_URL: address.url } : {}),
          SLINK_PORT: String(port),
          SLINK_HOSTNAME: '127.0.0.1',
        }),
      });
      await waitHealthy(server);
    }, 60_000);
    afterAll(() => server.kill());

    /** curl fetching an export into a file; its exit code, the status it got, and the file. */
    function curl(id: string, file: string, rate?: string) {
      const args = ['curl', '-sS', '-o', file, '-w', '%{http_code}', '-H', `Authorization: Bearer ${key}`];
      if (rate) args.push('--limit-rate', rate);
      const proc = Bun.spawn(
        [...args, `${server.base}/api/v1/links/${id}/export.csv?from=${T0 - CLICKS - 1}&to=${T0}`],
        {
          stdout: 'pipe',
          stderr: 'pipe',
        },
      );
      return {
        done: (async () => ({
          code: await proc.exited,
          status: await new Response(proc.stdout).text(),
          stderr: await new Response(proc.stderr).text(),
        }))(),
      };
    }

    test('an export read to its end: curl exits 0 with every row', async () => {
      const file = join(tempDir(), 'small.csv');
      const { code, status } = await curl(small.id, file).done;
      expect({ code, status }).toEqual({ code: 0, status: '200' });
      const lines = readFileSync(file, 'utf8').split('\r\n');
      expect(lines[0]).toBe(HEADER);
      expect(lines).toHaveLength(1 + 10 + 1);
    });

    test('the link deleted after the first rows arrived: the transfer is incomplete (curl fails), never a whole file', async () => {
      const file = join(tempDir(), 'big.csv');
      // Slowly, so that the export is still running when the link goes.
      const run = curl(big.id, file, '1000k');
      // Once the first page is in the file (the header and EXPORT_PAGE rows: ~100 bytes each)...
      for (let i = 0; i < 600 && !(existsSync(file) && statSync(file).size > EXPORT_PAGE * 100); i++)
        await Bun.sleep(25);
      expect(statSync(file).size).toBeGreaterThan(EXPORT_PAGE * 100);
      // ...the link goes (only its clicks' counters are zero in this fixture: the API may delete it).
      const deleted = await fetch(`${server.base}/api/v1/links/${big.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${key}` },
      });
      expect([deleted.status, await deleted.json()]).toEqual([200, { id: big.id, deleted: true }]);
      const { code, status, stderr } = await run.done;
      // 200 was sent with the first rows; then the connection ends before the body's last chunk:
      // curl says so (18: transfer closed with data outstanding, 56: connection reset).
      expect(status).toBe('200');
      expect([18, 56]).toContain(code);
      expect(stderr).toMatch(/curl: \((18|56)\)/);
      const text = readFileSync(file, 'utf8');
      expect(text.startsWith(`${HEADER}\r\n`)).toBe(true);
      expect(text.split('\r\n').length - 2).toBeLessThan(CLICKS);
      // The server says why, and keeps answering.
      for (let i = 0; i < 200 && !server.output().includes('cut short'); i++) await Bun.sleep(25);
      expect(server.output()).toMatch(/export \d+ cut short: its link was deleted/);
      expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
      const again = await curl(small.id, join(tempDir(), 'again.csv')).done;
      expect({ code: again.code, status: again.status }).toEqual({ code: 0, status: '200' });
    }, 60_000);
  });
});
