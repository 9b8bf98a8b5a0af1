/**
 * The server's part of domains, through real HTTP: a request whose Host is a domain's is noted,
 * and the stop writes its lastSeenAt (the minute's timer never fired); /tls/ask answers on the
 * address Caddy asks, without a key. One engine: the server's wiring, not the store, is tested.
 */
import { Database } from 'bun:sqlite';
import { expect, test } from 'bun:test';
import { loadConfig } from '../../../src/config';
import { startServer } from '../../../src/server';
import { freshDb, superuserWriteKey } from '../../helpers/cli';

test('a visit on a domain’s host is written as its lastSeenAt when the server stops', async () => {
  const db = freshDb();
  const key = await superuserWriteKey(db);
  const lines: string[] = [];
  const config = loadConfig({
    SLINK_DB: db,
    SLINK_PORT: '0',
    SLINK_HOSTNAME: '127.0.0.1',
    SLINK_SHORT_HOST: 'http://short.test',
    SLINK_GEO_DB: '',
  });
  const server = await startServer(config, { info: (m) => lines.push(m), error: (m) => lines.push(`ERROR ${m}`) });
  const base = `http://127.0.0.1:${server.port}`;
  let stopped = false;
  try {
    const added = await fetch(`${base}/api/v1/domains`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ origin: 'https://go.test' }),
    });
    expect(added.status).toBe(201);
    const ask = await fetch(`${base}/tls/ask?domain=GO.test`);
    expect(ask.status).toBe(200);
    expect(await ask.json()).toEqual({ host: 'go.test' });
    const unknown = await fetch(`${base}/tls/ask?domain=other.test`);
    expect(unknown.status).toBe(404);
    await unknown.arrayBuffer();

    const before = Date.now();
    const visit = await fetch(`${base}/nothing-here`, { headers: { host: 'go.test' }, redirect: 'manual' });
    expect(visit.status).toBe(404);
    await visit.arrayBuffer();
    const seen = await fetch(`${base}/api/v1/domains/go.test`, { headers: { authorization: `Bearer ${key}` } });
    const lastSeenAt = ((await seen.json()) as { lastSeenAt: number }).lastSeenAt;
    expect(lastSeenAt).toBeGreaterThanOrEqual(before);

    await server.stop();
    stopped = true;
    const conn = new Database(db, { readonly: true });
    try {
      const row = conn.query("SELECT last_seen_at AS at FROM domains WHERE host = 'go.test'").get() as { at: number };
      expect(row.at).toBe(lastSeenAt);
    } finally {
      conn.close();
    }
    expect(lines.filter((l) => l.startsWith('ERROR'))).toEqual([]);
  } finally {
    if (!stopped) await server.stop();
  }
});
