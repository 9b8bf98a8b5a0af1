/**
 * The server's start, through real HTTP: a redirect that comes in the moment it listens, before
 * the links are in memory, finds its link in the database, and a known slug is never asked of
 * the domain's read-through upstream. On PostgreSQL, where the start still awaits the database
 * after it listens: that wait is held open (the accounts table locked from another connection)
 * while the visit comes in.
 */
import { expect, test } from 'bun:test';
import { loadConfig } from '../../../src/config';
import { openPostgres } from '../../../src/db/postgres/client';
import { startServer } from '../../../src/server';
import { createLinkAt, freshDb, superuserWriteKey } from '../../helpers/cli';
import { startFakeUpstream } from '../../helpers/fake-upstream';
import { freshPostgresUrl } from '../../helpers/postgres';
import { freePort } from '../../helpers/proc';

test('a known slug asked the moment the server listens redirects, and its upstream is not asked', async () => {
  const db = freshDb();
  const url = await freshPostgresUrl();
  const key = await superuserWriteKey(db, { SLINK_DATABASE_URL: url });
  const old = startFakeUpstream();
  const config = loadConfig({
    SLINK_DB: db,
    SLINK_DATABASE_URL: url,
    SLINK_PORT: String(await freePort()),
    SLINK_HOSTNAME: '127.0.0.1',
    SLINK_SHORT_HOST: 'http://short.test',
    SLINK_GEO_DB: '',
    SLINK_UPSTREAM_ALLOW_PRIVATE: '1',
  });
  const errors: string[] = [];
  const log = { info: () => {}, error: (m: string) => errors.push(m) };
  try {
    // A link on the default domain, whose upstream is the old service.
    const first = await startServer(config, log);
    const base = `http://127.0.0.1:${first.port}`;
    await createLinkAt(base, key, 'known');
    const patched = await fetch(`${base}/api/v1/domains/short.test`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ upstream: old.origin }),
    });
    expect(patched.status).toBe(200);
    await first.stop();

    // Started again, its first read after it listens held (the accounts, whether setup is needed):
    // the visit comes in while the start waits there.
    const locker = openPostgres(url, 1);
    const released = Promise.withResolvers<void>();
    const locked = Promise.withResolvers<void>();
    const holding = locker.begin(async (tx) => {
      await tx`LOCK TABLE accounts IN ACCESS EXCLUSIVE MODE`;
      locked.resolve();
      await released.promise;
    });
    await locked.promise;
    const visited = Promise.withResolvers<Response>();
    const starting = startServer(config, log, {
      listening: () => {
        fetch(`http://127.0.0.1:${config.port}/known`, { headers: { host: 'short.test' }, redirect: 'manual' }).then(
          visited.resolve,
          visited.reject,
        );
      },
    });
    let again: Awaited<typeof starting> | null = null;
    try {
      const res = await visited.promise;
      expect([res.status, res.headers.get('location')]).toEqual([302, 'https://example.com/landing']);
      expect(old.total).toBe(0);
    } finally {
      released.resolve();
      await holding;
      await locker.close();
      again = await starting;
      await again.stop();
    }
    expect(errors).toEqual([]);
  } finally {
    await old.stop();
  }
});
