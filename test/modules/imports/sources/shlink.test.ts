import { afterAll, describe, expect, test } from 'bun:test';
import { sourceFor } from '../../../../src/modules/imports/public';
import { startShlinkFake } from '../../../fakes/shlink';
import { allLinks, allVisits, failure, never, optionsFor } from './support';

// 450 links: three pages of 200. One has 700 visits (three pages of 300, walked backwards), one none.
const links = Array.from({ length: 450 }, (_, i) => ({
  shortCode: `c${i}`,
  longUrl: `https://example.com/${i}`,
  dateCreated: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString().replace(/\.000Z$/, '+00:00'),
}));
const busy = Array.from({ length: 700 }, (_, i) => ({
  date: new Date(Date.UTC(2024, 1, 1) + i * 60_000).toISOString(),
  referer: i === 0 ? 'https://search.example/q' : undefined,
  userAgent: i === 0 ? 'Mozilla/5.0 (Macintosh) Safari/605.1.15' : 'curl/8.0',
  countryCode: i === 0 ? 'de' : undefined,
  cityName: i === 0 ? 'Berlin' : undefined,
  potentialBot: i !== 0,
}));
links[0] = {
  ...links[0]!,
  // @ts-expect-error the seed's optional fields
  title: 'The first',
  tags: ['news', 'tech'],
  validUntil: '2030-01-01T00:00:00+00:00',
  maxVisits: 1000,
  visits: busy,
};
links[1] = { ...links[1]!, domain: 'go.example.org', visits: [{ date: '2024-03-01T10:00:00+00:00' }] } as never;

const fake = startShlinkFake({ links });
const token = fake.apiKey;
afterAll(() => fake.stop());

describe('shlink source', () => {
  const source = sourceFor('shlink', optionsFor(fake.url, token).options);

  test('pages through every short URL, oldest first, and maps every field', async () => {
    const { links: read, pages } = await allLinks(source);
    expect(pages).toBe(3);
    expect(read.map((l) => l.slug)).toEqual(links.map((l) => l.shortCode));
    expect(read[0]).toEqual({
      sourceId: 'c0',
      url: 'https://example.com/0',
      slug: 'c0',
      domain: null,
      title: 'The first',
      tags: ['news', 'tech'],
      createdAt: Date.UTC(2024, 0, 1),
      expiresAt: Date.UTC(2030, 0, 1),
      clickLimit: 1000,
      archived: false,
      totalClicks: 700,
      history: 'visits',
    });
    expect(read[1]).toMatchObject({
      sourceId: 'go.example.org/c1',
      domain: 'go.example.org',
      totalClicks: 1,
      title: null,
    });
    expect(read[2]).toMatchObject({ totalClicks: 0, expiresAt: null, clickLimit: null, tags: [] });
  });

  test('a position saved when pages were of 50 (the page alone) resumes with pages of 50: no link skipped or repeated', async () => {
    const third = await source.page('3', never);
    expect(third.links.map((l) => l.slug)).toEqual(links.slice(100, 150).map((l) => l.shortCode));
    expect(third.next).toBe('4:50');
    const fourth = await source.page(third.next, never);
    expect(fourth.links[0]!.slug).toBe('c150');
    // A fresh run's cursors carry their size.
    const first = await source.page(null, never);
    expect({ n: first.links.length, next: first.next }).toEqual({ n: 200, next: '2:200' });
    await expect(source.page('2:0', never)).rejects.toThrow('is not a page');
  });

  test("walks a link's visits from the last page back, so they come oldest first, every field kept", async () => {
    const { links: read } = await allLinks(source);
    const { visits, batches } = await allVisits(source, read[0]!);
    expect(batches).toBe(3);
    expect(visits).toHaveLength(700);
    expect(visits.map((v) => v.at)).toEqual(busy.map((v) => Date.parse(v.date)));
    expect(visits[0]).toEqual({
      sourceId: null,
      at: Date.UTC(2024, 1, 1),
      referrer: 'https://search.example/q',
      userAgent: 'Mozilla/5.0 (Macintosh) Safari/605.1.15',
      country: 'DE',
      city: 'Berlin',
      bot: false,
      device: null,
      browser: null,
      os: null,
    });
    // Unknown stays unknown: no referer, no place.
    expect(visits[1]).toMatchObject({ referrer: null, country: null, city: null, bot: true, userAgent: 'curl/8.0' });
  });

  test('a re-run reads only visits after the last one imported; a domain link is asked on its domain', async () => {
    const { links: read } = await allLinks(source);
    const after = Date.parse(busy[649]!.date);
    const { visits } = await allVisits(source, read[0]!, after);
    expect(visits.map((v) => v.at)).toEqual(busy.slice(650).map((v) => Date.parse(v.date)));
    expect((await allVisits(source, read[1]!)).visits.map((v) => v.at)).toEqual([Date.parse('2024-03-01T10:00:00Z')]);
    expect(fake.requests.some((r) => r.includes('/c1/visits') && r.includes('domain=go.example.org'))).toBe(true);
  });

  test('a link with no visits gives none, and asks nothing', async () => {
    const { links: read } = await allLinks(source);
    const before = fake.requests.length;
    expect((await allVisits(source, read[2]!)).visits).toEqual([]);
    expect(fake.requests.length).toBe(before);
    // Its count unknown, Shlink is asked: an empty first page with no pages is the end, not an error.
    expect((await allVisits(source, { ...read[2]!, totalClicks: null })).visits).toEqual([]);
    expect(fake.requests.slice(before)).toHaveLength(1);
  });

  test('a refused API key is a SourceError a person can act on, without the key', async () => {
    const wrong = 'wrong-key-that-is-secret';
    const error = await failure(sourceFor('shlink', optionsFor(fake.url, wrong).options).check(never));
    expect(error.name).toBe('SourceError');
    expect(error.retryable).toBe(false);
    expect(error.field).toBe('token');
    expect(error.message).toContain(
      'Shlink refused the API key (401 Invalid API key: Provided API key does not exist or is invalid.)',
    );
    expect(error.message).toContain('give an API key of this Shlink');
    expect(error.message).not.toContain(wrong);
  });

  test('a 429 is waited out for its Retry-After through the injected sleep', async () => {
    const limited = startShlinkFake({ links: links.slice(2, 5), rateLimit: { every: 1 }, retryAfter: '7' });
    try {
      const { options, waits } = optionsFor(limited.url, limited.apiKey);
      const s = sourceFor('shlink', options);
      await s.check(never);
      const { links: read } = await allLinks(s);
      expect(read).toHaveLength(3);
      expect((await allVisits(s, read[0]!)).visits).toEqual([]);
      expect(limited.refused).toBeGreaterThan(0);
      expect(waits).toEqual(Array(limited.refused).fill(7000));
    } finally {
      limited.stop();
    }
  });

  test('a generated Shlink serves 100,000 links without holding them', async () => {
    const big = startShlinkFake({ generated: { links: 100_000, visitsPerLink: 10 } });
    try {
      const s = sourceFor('shlink', optionsFor(big.url, big.apiKey).options);
      const last = await s.page('2000', never);
      expect(last.next).toBeNull();
      expect(last.links.at(-1)).toMatchObject({ slug: 'g99999', totalClicks: 10 });
      const { visits } = await allVisits(s, last.links.at(-1)!);
      expect(visits).toHaveLength(10);
      expect(visits.map((v) => v.at)).toEqual([...visits.map((v) => v.at)].sort((a, b) => a - b));
    } finally {
      big.stop();
    }
  });
});
