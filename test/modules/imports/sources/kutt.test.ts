import { afterAll, describe, expect, test } from 'bun:test';
import { sourceFor } from '../../../../src/modules/imports/public';
import { type KuttLinkSeed, startKuttFake } from '../../../fakes/kutt';
import { allLinks, failure, never, optionsFor } from './support';

const links: KuttLinkSeed[] = Array.from({ length: 120 }, (_, i) => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  address: `k${i}`,
  target: `https://example.com/${i}`,
  visit_count: i,
  created_at: new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString(),
}));
links[0] = {
  ...links[0]!,
  description: 'A described link',
  domain: 'Go.Example.org',
  banned: true,
  visit_count: 42,
  expire_in: '2031-02-03T00:00:00.000Z',
};

const fake = startKuttFake({ links });
afterAll(() => fake.stop());

describe('kutt source', () => {
  const source = sourceFor('kutt', optionsFor(fake.url, fake.apiKey).options);

  test('reads every offset page of 50 to the end and maps each link with its total', async () => {
    const { links: read, pages } = await allLinks(source);
    expect(pages).toBe(3);
    expect(read).toHaveLength(120);
    expect(new Set(read.map((l) => l.slug)).size).toBe(120);
    expect(read.find((l) => l.slug === 'k0')).toEqual({
      sourceId: links[0]!.id,
      url: 'https://example.com/0',
      slug: 'k0',
      domain: 'go.example.org',
      title: 'A described link',
      tags: [],
      createdAt: Date.UTC(2024, 0, 1),
      expiresAt: Date.UTC(2031, 1, 3),
      clickLimit: null,
      archived: true,
      totalClicks: 42,
      history: 'total',
    });
    expect(read.find((l) => l.slug === 'k7')).toMatchObject({
      domain: null,
      title: null,
      totalClicks: 7,
      archived: false,
    });
    expect(
      fake.requests
        .filter((r) => r.startsWith('/api/v2/links?limit=50'))
        .map((r) => new URL(r, fake.url).searchParams.get('skip')),
    ).toEqual(['0', '50', '100']);
  });

  test('a 429 is waited out for its Retry-After', async () => {
    const limited = startKuttFake({ links, rateLimit: { every: 1 } });
    try {
      const { options, waits } = optionsFor(limited.url, limited.apiKey);
      expect((await allLinks(sourceFor('kutt', options))).links).toHaveLength(120);
      expect(waits).toEqual([3000, 3000]);
    } finally {
      limited.stop();
    }
  });

  test('a refused API key says so in Kutt words, without the key', async () => {
    const wrong = 'not-the-kutt-key';
    const error = await failure(sourceFor('kutt', optionsFor(fake.url, wrong).options).check(never));
    expect(error.name).toBe('SourceError');
    expect(error.message).toContain('Kutt refused the API key (401 API key is not correct.)');
    expect(error.message).not.toContain(wrong);
  });
});
