/**
 * A click's listed destination, params and variant are its own, always: a link deleted with
 * its clicks leaves nothing behind that another link's clicks could be listed with, in the
 * clicks list and the CSV export (either engine's exports), whether the clicks are
 * written inline (tests) or by the writer Worker (a spawned server).
 *
 * The stored "where it went" of a click is a click_targets row shared by the link's clicks;
 * readers cache rows by id, so an id must never name another row later, even after the row
 * with the highest id went with its link.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { parse } from 'csv-parse/sync';
import { api, disposeTestApp } from '../../helpers/app';
import { freshDb, superuserWriteKey } from '../../helpers/cli';
import { forEachEngine } from '../../helpers/engines';
import { freshPostgresUrl } from '../../helpers/postgres';
import { BUN, cleanEnv, freePort, type RunningProcess, start, waitHealthy } from '../../helpers/proc';
import { type Ctx, clickRequest, createLink, createVariant, flushOk, setup, UA } from '../clicks/support';

/** The cells of a click record that say where it went, by CSV column. */
const WHERE = { variantCode: 4, variantKnown: 5, destination: 6, params: 7, bot: 16 } as const;

function csvRecords(text: string): string[][] {
  return (parse(text, { record_delimiter: '\r\n' }) as string[][]).slice(1);
}

function whereOf(cells: string[]) {
  return {
    variantCode: cells[WHERE.variantCode] === '' ? null : cells[WHERE.variantCode],
    variantKnown: cells[WHERE.variantKnown] === 'true',
    destination: cells[WHERE.destination],
    params: JSON.parse(cells[WHERE.params]!),
    bot: cells[WHERE.bot] === 'true',
  };
}

const SECRET_LINK = { destination: 'https://secret.example/a', params: { token: 'A-secret' } };
const SECRET_LOCATION = 'https://secret.example/a?token=A-secret&src=v';
const PLAIN_LOCATION = 'https://plain.example/b';

forEachEngine((engine) => {
  describe('a deleted link leaves nothing to another link (inline writer, the engine’s export runner)', () => {
    let c: Ctx;
    beforeAll(async () => {
      c = await setup({}, engine);
    });
    afterAll(() => disposeTestApp(c.t));

    const list = (id: string) => api(c.t, 'GET', `/links/${id}/clicks?bots=1`, { key: c.key });
    const exportCsv = (id: string) => api(c.t, 'GET', `/links/${id}/export.csv?bots=1`, { key: c.key });

    test('a new link clicked after a deleted one: its clicks list and export show its own target', async () => {
      // A link with a secret param and a variant; one bot hit through the variant (a bot-only link
      // may be deleted through the API), listed and exported: the readers now know its target.
      const secret = await createLink(c, SECRET_LINK);
      await createVariant(c, secret.id, { code: 'v', params: { src: 'v' } });
      const hit = await c.t.app.handle(clickRequest(`/${secret.slug}/v`, { ua: UA.curl }));
      expect([hit.status, hit.headers.get('location')]).toEqual([302, SECRET_LOCATION]);
      await flushOk(c.t);
      const before = await list(secret.id);
      expect(before.status).toBe(200);
      expect(before.body.items.map((i: any) => [i.destination, i.params, i.variantCode])).toEqual([
        [SECRET_LOCATION, { token: 'A-secret', src: 'v' }, 'v'],
      ]);
      const beforeCsv = await exportCsv(secret.id);
      expect(beforeCsv.status).toBe(200);
      expect(csvRecords(beforeCsv.text).map(whereOf)).toEqual([
        {
          variantCode: 'v',
          variantKnown: true,
          destination: SECRET_LOCATION,
          params: { token: 'A-secret', src: 'v' },
          bot: true,
        },
      ]);

      const deleted = await api(c.t, 'DELETE', `/links/${secret.id}`, { key: c.key });
      expect([deleted.status, deleted.body]).toEqual([200, { id: secret.id, deleted: true }]);

      // Another link, clicked: its one click is listed with its own destination, no params, no variant.
      const plain = await createLink(c, { destination: PLAIN_LOCATION });
      const res = await c.t.app.handle(clickRequest(`/${plain.slug}`, { ua: UA.chromeWin }));
      expect([res.status, res.headers.get('location')]).toEqual([302, PLAIN_LOCATION]);
      await flushOk(c.t);
      const after = await list(plain.id);
      expect(after.status).toBe(200);
      expect(after.body.items).toHaveLength(1);
      expect(after.body.items[0]).toMatchObject({
        linkId: plain.id,
        slug: plain.slug,
        variantCode: null,
        variantKnown: false,
        destination: PLAIN_LOCATION,
        params: {},
        bot: false,
      });
      const csv = await exportCsv(plain.id);
      expect(csv.status).toBe(200);
      expect(csv.text).not.toContain('A-secret');
      expect(csvRecords(csv.text).map(whereOf)).toEqual([
        { variantCode: null, variantKnown: false, destination: PLAIN_LOCATION, params: {}, bot: false },
      ]);
    });
  });
});

forEachEngine((engine) => {
  describe('a deleted link leaves nothing to another link (spawned server: the writer Worker, the engine’s exports)', () => {
    let server: RunningProcess;
    let key: string;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.base}/api/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return {
        status: res.status,
        text,
        body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text,
      };
    };
    /** The link's clicks (bots too) once `n` are listed: the writer flushes every 50 ms. */
    const clicksOf = async (id: string, n: number) => {
      for (;;) {
        const res = await call('GET', `/links/${id}/clicks?bots=1`);
        expect(res.status).toBe(200);
        if (res.body.items.length >= n) return res.body.items;
        await Bun.sleep(25);
      }
    };
    const redirect = async (path: string, ua: string) => {
      const res = await fetch(`${server.base}${path}`, { redirect: 'manual', headers: { 'user-agent': ua } });
      await res.arrayBuffer();
      return [res.status, res.headers.get('location')];
    };

    beforeAll(async () => {
      const db = freshDb();
      const engineEnv: Record<string, string> =
        engine === 'postgres' ? { SLINK_DATABASE_URL: await freshPostgresUrl() } : {};
      key = await superuserWriteKey(db, engineEnv);
      const port = freePort();
      server = start([BUN, 'run', 'src/index.ts', 'serve'], port, {
        env: cleanEnv({
          SLINK_DB: db,
          ...engineEnv,
          SLINK_PORT: String(port),
          SLINK_HOSTNAME: '127.0.0.1',
          SLINK_FLUSH_MS: '50',
        }),
      });
      await waitHealthy(server);
    }, 30_000);
    afterAll(async () => {
      expect(await server.stop()).toBe(0);
    });

    test('the recreated slug and a new link list their own destination and params, in the list and the export', async () => {
      const secret = (await call('POST', '/links', { ...SECRET_LINK, slug: 'reused' })).body;
      expect((await call('POST', `/links/${secret.id}/variants`, { code: 'v', params: { src: 'v' } })).status).toBe(
        201,
      );
      expect(await redirect('/reused/v', UA.curl)).toEqual([302, SECRET_LOCATION]);
      const first = await clicksOf(secret.id, 1);
      expect(first.map((i: any) => [i.destination, i.params])).toEqual([
        [SECRET_LOCATION, { token: 'A-secret', src: 'v' }],
      ]);
      const firstCsv = await call('GET', `/links/${secret.id}/export.csv?bots=1`);
      expect(csvRecords(firstCsv.text).map(whereOf)[0]!.params).toEqual({ token: 'A-secret', src: 'v' });
      expect(await call('DELETE', `/links/${secret.id}`)).toMatchObject({
        status: 200,
        body: { id: secret.id, deleted: true },
      });

      // The same slug again, to another destination, and clicked by a person.
      const again = (await call('POST', '/links', { destination: PLAIN_LOCATION, slug: 'reused' })).body;
      expect(again.id).not.toBe(secret.id);
      expect(await redirect('/reused', UA.chromeWin)).toEqual([302, PLAIN_LOCATION]);
      const items = await clicksOf(again.id, 1);
      expect(items.map((i: any) => [i.linkId, i.destination, i.params, i.variantCode, i.bot])).toEqual([
        [again.id, PLAIN_LOCATION, {}, null, false],
      ]);
      const csv = await call('GET', `/links/${again.id}/export.csv?bots=1`);
      expect(csv.status).toBe(200);
      expect(csv.text).not.toContain('A-secret');
      expect(csvRecords(csv.text).map(whereOf)).toEqual([
        { variantCode: null, variantKnown: false, destination: PLAIN_LOCATION, params: {}, bot: false },
      ]);
    }, 30_000);
  });
});
