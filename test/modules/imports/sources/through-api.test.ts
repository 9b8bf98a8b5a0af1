/**
 * The sources through the whole path: POST /api/v1/imports on the real app reading each fake
 * over real HTTP, the links made as the engine makes them, a refused token a 400 naming `token`
 * without the token. The engine does not matter to a source: SQLite only.
 */
import { describe, expect, test } from 'bun:test';
import { sourceFor } from '../../../../src/modules/imports/public';
import { startBitlyFake } from '../../../fakes/bitly';
import { startKuttFake } from '../../../fakes/kutt';
import { startShlinkFake } from '../../../fakes/shlink';
import { parseCsv } from '../e2e-support';
import { ended, importApp } from '../support';

const shlink = startShlinkFake({
  links: [
    {
      shortCode: 'sh-one',
      longUrl: 'https://example.com/one',
      title: 'One',
      tags: ['a'],
      dateCreated: '2024-01-01T00:00:00+00:00',
    },
    {
      shortCode: 'sh-two',
      longUrl: 'https://example.com/two',
      dateCreated: '2024-01-02T00:00:00+00:00',
      visits: [{ date: '2024-02-01T00:00:00+00:00' }],
    },
  ],
});
// Answers every request with JSON that is no product's: a wrong address.
const stranger = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => Response.json({ hello: 'world' }) });
// Answers as Shlink's list of short URLs does, but with no list in it.
const listless = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch: () => Response.json({ shortUrls: { data: 'none', pagination: { currentPage: 1, pagesCount: 1 } } }),
});
// Refuses every request for its rate limit, for an hour.
const busy = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch: () => new Response('slow down', { status: 429, headers: { 'retry-after': '3600' } }),
});
// Takes every connection and never answers (until the file ends).
let hangUp: () => void = () => {};
const hungUp = new Promise<Response>((resolve) => {
  hangUp = () => resolve(new Response('gone', { status: 503 }));
});
const silent = Bun.serve({ port: 0, hostname: '127.0.0.1', idleTimeout: 0, fetch: () => hungUp });
// A branded link whose daily clicks run into years to come.
const bitly = startBitlyFake({
  groups: [
    {
      guid: 'Bg1',
      links: [
        {
          id: 'br.test/ahead',
          long_url: 'https://example.com/ahead',
          created_at: '2026-01-01T00:00:00+0000',
          clicks: { '2026-11-20': 2, '2099-01-01': 5 },
        },
      ],
    },
  ],
});
const kutt = startKuttFake({
  links: [
    {
      id: 'k-1',
      address: 'ku-one',
      target: 'https://example.com/kutt',
      visit_count: 3,
      created_at: '2024-01-01T00:00:00.000Z',
    },
  ],
});

// The sources as the composition root builds them, with the service's private-address switch.
const imports = importApp({
  fakes: [
    shlink,
    kutt,
    { stop: () => stranger.stop(true) },
    { stop: () => busy.stop(true) },
    { stop: () => listless.stop(true) },
    {
      stop: () => {
        hangUp();
        silent.stop(true);
      },
    },
  ],
  prepare: (t) => {
    t.deps.sources = (name, options) =>
      sourceFor(name, { ...options, allowPrivate: t.deps.config.upstreamAllowPrivate });
  },
});
const { call, run } = imports;

describe('sources through POST /api/v1/imports', () => {
  test('shlink: every short URL made, with its title and tags', async () => {
    const final = await run({ source: 'shlink', url: shlink.url, token: shlink.apiKey });
    expect(final).toMatchObject({ status: 'done', links: { seen: 2, created: 2, skipped: 0, failed: 0 }, errors: [] });
    const one = (await call('GET', '/links?q=sh-one')).body.items[0];
    expect(one).toMatchObject({ slug: 'sh-one', destination: 'https://example.com/one', title: 'One', tags: ['a'] });
  });

  test('kutt: its links made', async () => {
    const final = await run({ source: 'kutt', url: kutt.url, token: kutt.apiKey });
    expect(final).toMatchObject({ status: 'done', links: { seen: 1, created: 1 } });
    expect((await call('GET', '/links?q=ku-one')).body.items[0]).toMatchObject({
      destination: 'https://example.com/kutt',
    });
  });

  test('a refused token is a 400 naming token, without the token', async () => {
    const res = await call('POST', '/imports', { source: 'shlink', url: shlink.url, token: 'not-the-right-key' });
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe('token');
    expect(res.body.error.message).toContain('Shlink refused the API key');
    expect(JSON.stringify(res.body)).not.toContain('not-the-right-key');
    // Worded for the API and the dashboard's form, where no command-line option exists.
    expect(res.body.error.message).not.toMatch(/--[a-z]/);
  });

  test('an address with a user, a password and a query: none of them in the answer', async () => {
    for (const source of ['shlink', 'kutt', 'yourls', 'bitly', 'dub']) {
      const url = `http://someone:pass-w0rd-9@127.0.0.1:${stranger.port}/old?signature=query-s3cret`;
      const res = await call('POST', '/imports', { source, url, token: 'a-token-1234' });
      expect({ source, status: res.status, field: res.body.error?.field }).toEqual({
        source,
        status: 400,
        field: 'url',
      });
      expect(res.body.error.message).toContain(`http://127.0.0.1:${stranger.port}/old`);
      for (const secret of ['someone', 'pass-w0rd-9', 'query-s3cret', 'a-token-1234'])
        expect({ source, secret, said: res.text.includes(secret) }).toEqual({ source, secret, said: false });
    }
  });

  test('a source refusing for its rate limit at the first request: a 400 at once, saying when to try again', async () => {
    const res = await call('POST', '/imports', {
      source: 'shlink',
      url: `http://127.0.0.1:${busy.port}`,
      token: 'k-1234',
    });
    expect({ status: res.status, field: res.body.error?.field }).toEqual({ status: 400, field: 'url' });
    expect(res.body.error.message).toBe(
      'shlink: Shlink refuses requests for its rate limit for 3600 s: start the import again then',
    );
  });

  test('a source that never answers: the start is a 400 naming url once its patience is out, not after the run’s retries', async () => {
    // The start's patience shortened (START_CHECK_MS in the service): the run's own, 30 s a request tried four times, is not.
    imports.t.deps.startCheckMs = 50;
    try {
      const res = await call('POST', '/imports', {
        source: 'shlink',
        url: `http://127.0.0.1:${silent.port}/rest?apiKey=hidden-1234`,
        token: 'k-1234',
      });
      expect({ status: res.status, field: res.body.error?.field, message: res.body.error?.message }).toEqual({
        status: 400,
        field: 'url',
        message: `shlink: the source did not answer within 0.05 s at http://127.0.0.1:${silent.port}/rest; check the address, or start again once it answers`,
      });
    } finally {
      imports.t.deps.startCheckMs = undefined;
    }
  });

  test('a file read in a dry run leaves the service answering between its pages', async () => {
    // 120 pages of rows, nothing written for any: the run only reads and decides.
    const rows = Array.from({ length: 60_000 }, (_, i) => `https://example.com/dry/${i},dry-${i}`);
    const form = new FormData();
    form.set('source', 'csv');
    form.set('dryRun', 'true');
    form.set('file', new Blob([`url,slug\n${rows.join('\n')}\n`]), 'many.csv');
    const started = await call('POST', '/imports', form);
    expect(started.status).toBe(202);
    // Answered while the run goes on, not once it has read the whole file.
    const read = await call('GET', `/imports/${started.body.id}`);
    expect({ status: read.body.status, before: read.body.links.seen < rows.length }).toEqual({
      status: 'running',
      before: true,
    });
    await call('DELETE', `/imports/${started.body.id}`);
    await ended(async () => (await call('GET', `/imports/${started.body.id}`)).body);
  });

  test("an answer shaped as Shlink's but with no list of short URLs: 400 naming url, not a run done with nothing", async () => {
    const res = await call('POST', '/imports', {
      source: 'shlink',
      url: `http://127.0.0.1:${listless.port}`,
      token: 'k-1234',
    });
    expect({ status: res.status, field: res.body.error?.field, message: res.body.error?.message }).toEqual({
      status: 400,
      field: 'url',
      message: `shlink: http://127.0.0.1:${listless.port} did not answer as Shlink's REST API v3 does; check the address`,
    });
  });

  test('a CSV whose first line runs on past 64 KiB is refused at once (400 naming file), never read on', async () => {
    const form = new FormData();
    form.set('source', 'csv');
    form.set('file', new Blob([`url,${'a'.repeat(1 << 20)}\nhttps://example.com/long-header\n`]), 'long.csv');
    const res = await call('POST', '/imports', form);
    expect({ status: res.status, field: res.body.error?.field, message: res.body.error?.message }).toEqual({
      status: 400,
      field: 'file',
      message: 'csv: the first line of the CSV runs on past 64 KiB: it must be a header row naming its columns',
    });
  });

  test('a clicks column a link cannot hold (negative, a fraction, past 2^53) is neither stored nor counted by the run', async () => {
    const form = new FormData();
    form.set('source', 'csv');
    const rows = ['url,slug,clicks', 'https://example.com/t,tot-neg,-5', 'https://example.com/t,tot-frac,2.5'];
    rows.push('https://example.com/t,tot-huge,99999999999999999999999', 'https://example.com/t,tot-ok,3');
    form.set('file', new Blob([`${rows.join('\n')}\n`]), 'totals.csv');
    const started = await call('POST', '/imports', form);
    expect(started.status).toBe(202);
    const final = await ended(async () => (await call('GET', `/imports/${started.body.id}`)).body);
    expect({ status: final.status, links: final.links, clicks: final.clicks }).toEqual({
      status: 'done',
      links: { seen: 4, created: 4, skipped: 0, existing: 0, failed: 0 },
      clicks: { imported: 3 },
    });
    const counts = (await call('GET', '/links?q=tot-')).body.items.map((l: any) => [l.slug, l.clickCount]);
    expect(counts.sort()).toEqual([
      ['tot-frac', 0],
      ['tot-huge', 0],
      ['tot-neg', 0],
      ['tot-ok', 3],
    ]);
  });

  test('daily counts of days to come are not imported: no click is dated in years to come', async () => {
    const final = await run({ source: 'bitly', url: bitly.url, token: bitly.token, domain: 'sl.test' });
    expect({ status: final.status, links: final.links, clicks: final.clicks }).toEqual({
      status: 'done',
      links: { seen: 1, created: 1, skipped: 0, existing: 0, failed: 0 },
      clicks: { imported: 2 },
    });
    const made = (await call('GET', '/links?q=ahead')).body.items[0];
    expect({ slug: made.slug, clickCount: made.clickCount }).toEqual({ slug: 'ahead', clickCount: 2 });
  });

  test('a slug the file gives again is skipped as taken, on its page or a later one; the file again: every row existing', async () => {
    // A CSV page is 500 rows: rep-1 again on the first page (row 500), rep-0 again on the second (row 501).
    const rows = Array.from({ length: 499 }, (_, i) => `https://example.com/rep/${i},rep-${i}`);
    rows.push('https://example.com/rep/same-page,rep-1', 'https://example.com/rep/later-page,rep-0');
    rows.push('https://example.com/rep/last,rep-last');
    const runFile = async () => {
      const form = new FormData();
      form.set('source', 'csv');
      form.set('file', new Blob([`url,slug\n${rows.join('\n')}\n`]), 'repeats.csv');
      const started = await call('POST', '/imports', form);
      expect(started.status).toBe(202);
      const final = await ended(async () => (await call('GET', `/imports/${started.body.id}`)).body);
      const lines = parseCsv((await call('GET', `/imports/${started.body.id}/report.csv`)).text).slice(1);
      return { final, lines };
    };
    const first = await runFile();
    const taken = (slug: string) => ({ source: slug, reason: `slug "${slug}" is taken on sl.test` });
    expect({ status: first.final.status, links: first.final.links, errors: first.final.errors }).toEqual({
      status: 'done',
      links: { seen: 502, created: 500, skipped: 2, existing: 0, failed: 0 },
      errors: [taken('rep-1'), taken('rep-0')],
    });
    expect(first.lines.slice(498)).toEqual([
      ['rep-498', 'created', 'https://sl.test/rep-498', ''],
      ['rep-1', 'skipped', '', 'slug "rep-1" is taken on sl.test'],
      ['rep-0', 'skipped', '', 'slug "rep-0" is taken on sl.test'],
      ['rep-last', 'created', 'https://sl.test/rep-last', ''],
    ]);
    const kept = (await call('GET', '/links?q=rep-0')).body.items.map((l: any) => [l.slug, l.destination]);
    expect(kept).toEqual([['rep-0', 'https://example.com/rep/0']]);
    // The same file again: nothing made, every row imported before (a repeat too), nothing noted.
    const again = await runFile();
    expect({ links: again.final.links, errors: again.final.errors }).toEqual({
      links: { seen: 502, created: 0, skipped: 502, existing: 502, failed: 0 },
      errors: [],
    });
    expect(new Set(again.lines.map((l) => `${l[1]} ${l[3]}`))).toEqual(new Set(['existing imported before']));
  });
});
