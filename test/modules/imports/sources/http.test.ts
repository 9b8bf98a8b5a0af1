import { heapStats } from 'bun:jsc';
import { afterAll, describe, expect, test } from 'bun:test';
import { PRODUCT_SOURCES, sourceFor } from '../../../../src/modules/imports/public';
import { retryAfterMs } from '../../../../src/modules/imports/sources/http';
import { startShlinkFake } from '../../../fakes/shlink';
import { startYourlsFake } from '../../../fakes/yourls';
import { failure, never, optionsFor } from './support';

const shlink = startShlinkFake({
  links: [{ shortCode: 'a', longUrl: 'https://example.com/', dateCreated: '2024-01-01T00:00:00+00:00' }],
});
afterAll(() => shlink.stop());

describe('what every source shares', () => {
  test('a loopback or private address is refused unless the service allows it, naming the switch', async () => {
    const error = await failure(
      sourceFor('shlink', optionsFor(shlink.url, shlink.apiKey, { allowPrivate: false }).options).check(never),
    );
    expect(error.name).toBe('SourceError');
    expect(error.retryable).toBe(false);
    expect(error.field).toBe('url');
    expect(error.message).toContain('127.0.0.1 leads to an internal address');
    expect(error.message).toContain('SLINK_UPSTREAM_ALLOW_PRIVATE=1');
    expect(shlink.requests).toHaveLength(0);
    // Left out, the option is the same refusal.
    const { allowPrivate: _, ...unset } = optionsFor(shlink.url, shlink.apiKey).options;
    expect((await failure(sourceFor('shlink', unset).check(never))).message).toContain('internal address');
  });

  test('a name that resolves to loopback is refused as its address would be', async () => {
    const url = shlink.url.replace('127.0.0.1', 'localhost');
    const error = await failure(
      sourceFor('kutt', optionsFor(url, 'key-1234', { allowPrivate: false }).options).check(never),
    );
    expect(error.message).toMatch(/localhost leads to an internal address \((127\.0\.0\.1|::1)\)/);
  });

  test('a redirect is not followed: the error names where it leads', async () => {
    const moved = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: () =>
        new Response(null, { status: 301, headers: { location: 'https://s.example.com/rest/v3/short-urls' } }),
    });
    try {
      const error = await failure(
        sourceFor('shlink', optionsFor(`http://127.0.0.1:${moved.port}`, 'key-1234').options).check(never),
      );
      expect(error.message).toContain('a redirect to https://s.example.com/rest/v3/short-urls');
      expect(error.message).toContain('give the address it redirects to');
    } finally {
      moved.stop(true);
    }
  });

  test('only http and https addresses are read', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com'])
      expect((await failure(sourceFor('shlink', optionsFor(url, 'key-1234').options).check(never))).message).toContain(
        'only http and https',
      );
  });

  test("a request's signal is let go once answered: none stays tied to the run's signal", async () => {
    const source = sourceFor('shlink', optionsFor(shlink.url, shlink.apiKey).options);
    const run = new AbortController();
    const signals = () => {
      Bun.gc(true);
      return heapStats().objectTypeCounts.AbortSignal ?? 0;
    };
    const before = signals();
    for (let i = 0; i < 300; i++) await source.page(null, run.signal);
    // AbortSignal.any kept one per request for as long as the run's lived (300 here).
    expect(signals() - before).toBeLessThan(50);
  });

  test('a 5xx is tried again after a growing wait, then a retryable error without the token', async () => {
    let calls = 0;
    const flaky = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: () =>
        ++calls < 3
          ? new Response('oops', { status: 502 })
          : Response.json({ shortUrls: { data: [], pagination: {} } }),
    });
    try {
      const { options, waits } = optionsFor(`http://127.0.0.1:${flaky.port}`, 'secret-token-502');
      await sourceFor('shlink', options).check(never);
      expect(waits).toEqual([1000, 2000]);
      calls = -100;
      const error = await failure(sourceFor('shlink', options).check(never));
      expect(error.retryable).toBe(true);
      expect(error.message).toContain('Shlink answered 502');
      expect(error.message).not.toContain('secret-token-502');
    } finally {
      flaky.stop(true);
    }
  });

  test('no answer at all is retried, then a retryable error; a token in the query is never in it', async () => {
    const yourls = startYourlsFake({ links: [], signature: 'sig/with+odd=chars' });
    const site = yourls.site;
    yourls.stop();
    const { options, waits } = optionsFor(site, 'sig/with+odd=chars');
    const error = await failure(sourceFor('yourls', options).check(never));
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('YOURLS did not answer');
    expect(error.message).not.toContain('sig/with+odd=chars');
    expect(error.message).not.toContain(encodeURIComponent('sig/with+odd=chars'));
    expect(waits).toEqual([1000, 2000, 4000]);
  });

  test('a missing address, token or file is named before anything is asked', () => {
    expect(() => sourceFor('shlink', optionsFor(null, 'k').options)).toThrow(
      'shlink needs the address your Shlink answers its API on',
    );
    for (const name of ['shlink', 'bitly', 'kutt', 'dub'] as const)
      expect(() => sourceFor(name, optionsFor('https://x.example', null).options)).toThrow(`${name} needs `);
    expect(() => sourceFor('csv', optionsFor(null, null).options)).toThrow('csv needs a file');
    expect(PRODUCT_SOURCES.sort()).toEqual(['bitly', 'csv', 'dub', 'kutt', 'shlink', 'yourls']);
  });

  test('Retry-After in seconds, as an HTTP date, or as the epoch (Dub) all become a wait', () => {
    const now = Date.UTC(2024, 0, 1);
    expect(retryAfterMs('7', now)).toBe(7000);
    expect(retryAfterMs(new Date(now + 3000).toUTCString(), now)).toBe(3000);
    expect(retryAfterMs(String(now + 4500), now)).toBe(4500);
    expect(retryAfterMs(String((now + 9000) / 1000), now)).toBe(9000);
    expect(retryAfterMs(null, now)).toBe(60_000);
    expect(retryAfterMs('999999', now)).toBe(3_600_000);
  });
});
