import { afterAll, describe, expect, test } from 'bun:test';
import { sourceFor } from '../../../../src/modules/imports/public';
import { type BitlinkSeed, startBitlyFake } from '../../../fakes/bitly';
import { allLinks, failure, never, optionsFor } from './support';

const many: BitlinkSeed[] = Array.from({ length: 230 }, (_, i) => ({
  id: `brand.example/b${i}`,
  long_url: `https://example.com/${i}`,
  created_at: '2023-05-01T12:00:00+0000',
}));
const groups = [
  {
    guid: 'Ba1',
    links: [
      {
        id: 'bit.ly/3xYz',
        long_url: 'https://example.com/custom',
        // Raw control characters, as Bitly sends titles copied from pages.
        title: 'Summer\u0001 sale\u000b',
        tags: ['promo'],
        created_at: '2024-02-03T04:05:06+0000',
        archived: true,
        custom_bitlinks: ['https://bit.ly/mine', 'https://Go.Brand.Example/summer', 'https://go.brand.example/summer2'],
        clicks: { '2024-02-03': 5, '2024-02-04': 0, '2024-02-05': 2 },
      },
      { id: 'bit.ly/4abc', long_url: 'https://example.com/plain', created_at: '2024-01-01T00:00:00+0000' },
    ],
  },
  { guid: 'Bb2', links: many },
];

const fake = startBitlyFake({ groups, rawControlTitles: true });
afterAll(() => fake.stop());

describe('bitly source', () => {
  const source = sourceFor('bitly', optionsFor(fake.url, fake.token).options);

  test('reads every group to its end, archived links included, titles with control characters kept', async () => {
    const { links, pages } = await allLinks(source);
    // Group 1: one page; group 2: 230 links in pages of 100.
    expect(pages).toBe(4);
    expect(links.filter((l) => l.domain === 'brand.example')).toHaveLength(230);
    const custom = links.find((l) => l.sourceId === 'bit.ly/3xYz')!;
    expect(custom).toEqual({
      sourceId: 'bit.ly/3xYz',
      url: 'https://example.com/custom',
      slug: 'summer',
      domain: 'go.brand.example',
      title: 'Summer\u0001 sale\u000b',
      tags: ['promo'],
      createdAt: Date.UTC(2024, 1, 3, 4, 5, 6),
      expiresAt: null,
      clickLimit: null,
      archived: true,
      totalClicks: null,
      history: 'daily',
    });
    // A second custom back-half on the branded domain is a link of its own; its clicks are not counted twice.
    expect(links.find((l) => l.sourceId === 'go.brand.example/summer2')).toMatchObject({
      slug: 'summer2',
      history: 'none',
    });
  });

  test("the fake's titles break a strict parser, as Bitly's do", async () => {
    const res = await fetch(`${fake.url}/v4/groups/Ba1/bitlinks?archived=both`, {
      headers: { authorization: `Bearer ${fake.token}` },
    });
    const text = await res.text();
    expect(text).toContain('Summer\u0001 sale\u000b');
    expect(() => JSON.parse(text)).toThrow();
  });

  test('a bit.ly link is listed with the reason it cannot move', async () => {
    const { links } = await allLinks(source);
    const plain = links.find((l) => l.sourceId === 'bit.ly/4abc')!;
    expect(plain.domain).toBe('bit.ly');
    expect(plain.history).toBe('none');
    expect(plain.cannotMove).toContain('only Bitly answers');
    expect(links.filter((l) => l.cannotMove)).toHaveLength(1);
  });

  test('daily clicks oldest first, zero days left out, only days after the last imported', async () => {
    const { links } = await allLinks(source);
    const custom = links.find((l) => l.sourceId === 'bit.ly/3xYz')!;
    expect(await source.days!(custom, null, never)).toEqual([
      { day: '2024-02-03', clicks: 5 },
      { day: '2024-02-05', clicks: 2 },
    ]);
    expect(await source.days!(custom, '2024-02-03', never)).toEqual([{ day: '2024-02-05', clicks: 2 }]);
  });

  for (const status of [429, 403] as const)
    test(`its rate limit answered ${status} is waited out through the injected sleep`, async () => {
      const limited = startBitlyFake({ groups, rateLimit: { every: 2 }, rateLimitStatus: status });
      try {
        const { options, waits } = optionsFor(limited.url, limited.token);
        const { links } = await allLinks(sourceFor('bitly', options));
        expect(links).toHaveLength(233);
        expect(limited.refused).toBeGreaterThan(0);
        // No Retry-After from Bitly: a minute, its window.
        expect(waits).toEqual(Array(limited.refused).fill(60_000));
      } finally {
        limited.stop();
      }
    });

  test('a refused token is a SourceError saying so, without the token', async () => {
    const wrong = 'not-the-bitly-token';
    const error = await failure(sourceFor('bitly', optionsFor(fake.url, wrong).options).check(never));
    expect(error.name).toBe('SourceError');
    expect(error.retryable).toBe(false);
    expect(error.field).toBe('token');
    expect(error.message).toContain('Bitly refused the access token (403 FORBIDDEN: You are currently forbidden');
    expect(error.message).not.toContain(wrong);
  });
});
