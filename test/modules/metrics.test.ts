/**
 * GET /metrics (docs/operations.md, "Metrics"): 404 without SLINK_METRICS_TOKEN, 401 without the
 * right bearer token, Prometheus text with it; the counts follow what the service did. On both
 * engines: the database's size is the SQLite file's or the PostgreSQL database's.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { api, makeKey, makeTestApp, type TestApp } from '../helpers/app';
import { forEachEngine } from '../helpers/engines';

const TOKEN = 'a-long-scrape-token';
let t: TestApp | null = null;

afterEach(async () => {
  await t?.close();
  t = null;
});

async function scrape(app: TestApp, authorization?: string) {
  // Requests are counted after their response is sent (onAfterResponse), a few turns of the event
  // loop later when the handler awaited the database: let those run first.
  for (let turn = 0; turn < 10; turn++) await Bun.sleep(0);
  const res = await app.app.handle(
    new Request('http://localhost/metrics', { headers: authorization ? { authorization } : {} }),
  );
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

const NODE = 'node-7';

/**
 * The value of one sample line, e.g. `slink_clicks_written_total` or `name{label="x"}`, written
 * here without the `node` label every series carries (checked in the test below).
 */
function sample(text: string, series: string): number | null {
  const labelled = series.endsWith('}') ? `${series.slice(0, -1)},node="${NODE}"}` : `${series}{node="${NODE}"}`;
  const line = text.split('\n').find((l) => l.startsWith(`${labelled} `));
  return line === undefined ? null : Number(line.slice(labelled.length + 1));
}

forEachEngine((engine) => {
  describe('without SLINK_METRICS_TOKEN', () => {
    test('/metrics is 404 not_found, even with a bearer token', async () => {
      t = await makeTestApp({}, { engine });
      const res = await scrape(t, `Bearer ${TOKEN}`);
      expect(res.status).toBe(404);
      expect(JSON.parse(res.text).error.code).toBe('not_found');
      expect(t.deps.metrics).toBeNull();
    });
  });

  describe('with SLINK_METRICS_TOKEN', () => {
    test('no token is 401 key_missing, a wrong one 401 key_unknown, both with the error body', async () => {
      t = await makeTestApp({ SLINK_METRICS_TOKEN: TOKEN }, { engine });
      const missing = await scrape(t);
      expect(missing.status).toBe(401);
      expect(JSON.parse(missing.text).error.code).toBe('key_missing');
      for (const wrong of [`Bearer ${TOKEN}x`, 'Bearer a', `Basic ${TOKEN}`, TOKEN]) {
        const res = await scrape(t, wrong);
        expect(res.status).toBe(401);
        expect(JSON.parse(res.text).error.code).toBe(wrong.startsWith('Bearer ') ? 'key_unknown' : 'key_missing');
      }
    });

    test('the right token gets Prometheus text that counts requests, redirects and clicks', async () => {
      t = await makeTestApp({ SLINK_METRICS_TOKEN: TOKEN, SLINK_NODE_ID: NODE }, { engine });
      const { key } = await makeKey(t, 'write');
      const link = await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/m' } });
      expect(link.status).toBe(201);
      await api(t, 'GET', '/links', { key });
      await api(t, 'GET', '/links', { key: 'slk_wrong' });
      for (const path of [`/${link.body.slug}`, `/${link.body.slug}`, '/nosuchslug']) {
        await t.app.handle(new Request(`https://sl.test${path}`));
      }
      const before = await scrape(t, `Bearer ${TOKEN}`);
      expect(before.status).toBe(200);
      expect(before.type).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(sample(before.text, 'slink_redirects_total{status="302"}')).toBe(2);
      expect(sample(before.text, 'slink_redirects_total{status="404"}')).toBe(1);
      expect(sample(before.text, 'slink_http_requests_total{route="/api/v1/links",method="POST",status="201"}')).toBe(
        1,
      );
      expect(sample(before.text, 'slink_http_requests_total{route="/api/v1/links",method="GET",status="200"}')).toBe(1);
      expect(sample(before.text, 'slink_http_requests_total{route="/api/v1/*",method="GET",status="401"}')).toBe(1);
      expect(sample(before.text, 'slink_clicks_buffered')).toBe(2);
      expect(sample(before.text, 'slink_clicks_written_total')).toBe(0);
      expect(sample(before.text, 'slink_database_bytes')).toBeGreaterThan(0);
      expect(before.text).toContain('slink_process_resident_memory_bytes');

      expect(await t.deps.clicks.flusher.flush()).toBe(true);
      const after = await scrape(t, `Bearer ${TOKEN}`);
      expect(sample(after.text, 'slink_clicks_buffered')).toBe(0);
      expect(sample(after.text, 'slink_clicks_written_total')).toBe(2);
      expect(sample(after.text, 'slink_clicks_dropped_total')).toBe(0);
      expect(sample(after.text, 'slink_writer_lag_seconds')).toBe(0);
      expect(sample(after.text, 'slink_write_batch_seconds_count')).toBe(1);
      expect(sample(after.text, 'slink_flush_batch_seconds_count')).toBe(1);
      // The scrape before this one is counted too, under its own route.
      expect(sample(after.text, 'slink_http_requests_total{route="/metrics",method="GET",status="200"}')).toBe(1);
      // Every series names the node (SLINK_NODE_ID): scraped from several nodes, they stay apart.
      const samples = after.text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
      expect(samples.length).toBeGreaterThan(40);
      expect(samples.filter((l) => !l.includes(`node="${NODE}"`))).toEqual([]);
      // How current the links are with other nodes' writes: a series of PostgreSQL's only.
      const lag = sample(after.text, 'slink_link_changes_lag_seconds');
      if (engine === 'postgres') {
        expect(lag).toBeGreaterThanOrEqual(0);
        expect(lag).toBeLessThan(60);
        expect(sample(after.text, 'slink_link_changes_total{kind="resync"}')).toBe(0);
      } else expect(lag).toBeNull();
    });

    test('webhook attempts by outcome, and the deliveries pending', async () => {
      t = await makeTestApp(
        { SLINK_METRICS_TOKEN: TOKEN, SLINK_NODE_ID: NODE, SLINK_WEBHOOKS_ALLOW_PRIVATE: '1' },
        { engine },
      );
      const { key } = await makeKey(t, 'write', { superuser: true });
      let status = 500;
      const receiver = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('', { status }) });
      try {
        const hook = await api(t, 'POST', '/webhooks', {
          key,
          body: { url: `http://127.0.0.1:${receiver.port}/`, events: ['link.created'] },
        });
        expect(hook.status).toBe(201);
        for (const n of [1, 2])
          await api(t, 'POST', '/links', { key, body: { destination: `https://example.com/${n}` } });
        const pending = await scrape(t, `Bearer ${TOKEN}`);
        expect(sample(pending.text, 'slink_webhook_deliveries_pending')).toBe(2);
        await t.deps.webhooks.pass();
        await t.deps.webhooks.settled();
        status = 200;
        t.clock.advance(60_000);
        await t.deps.webhooks.pass();
        await t.deps.webhooks.settled();
        const after = await scrape(t, `Bearer ${TOKEN}`);
        expect({
          failed: sample(after.text, 'slink_webhook_attempts_total{outcome="failed"}'),
          delivered: sample(after.text, 'slink_webhook_attempts_total{outcome="delivered"}'),
          pending: sample(after.text, 'slink_webhook_deliveries_pending'),
        }).toEqual({ failed: 2, delivered: 2, pending: 0 });
      } finally {
        receiver.stop(true);
      }
    });

    test('on split hosts the short host does not answer /metrics', async () => {
      t = await makeTestApp({ SLINK_METRICS_TOKEN: TOKEN }, { engine });
      const res = await t.app.handle(
        new Request('https://sl.test/metrics', { headers: { authorization: `Bearer ${TOKEN}` } }),
      );
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('text/html');
    });
  });
});
