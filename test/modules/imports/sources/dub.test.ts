import { afterAll, describe, expect, test } from 'bun:test';
import { sourceFor } from '../../../../src/modules/imports/public';
import { type DubLinkSeed, startDubFake } from '../../../fakes/dub';
import { allLinks, allVisits, failure, never, optionsFor } from './support';

const links: DubLinkSeed[] = Array.from({ length: 150 }, (_, i) => ({
  id: `link_${String(i).padStart(4, '0')}`,
  domain: 'dub.sh',
  key: `d${i}`,
  url: `https://example.com/${i}`,
  createdAt: new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString(),
}));
const clicks = Array.from({ length: 1200 }, (_, i) => ({
  id: `click_${i}`,
  timestamp: new Date(Date.UTC(2024, 5, 1) + i * 60_000).toISOString(),
}));
clicks[0] = {
  ...clicks[0]!,
  // @ts-expect-error the seed's optional fields
  country: 'us',
  city: 'San Francisco',
  device: 'Mobile',
  browser: 'Safari',
  os: 'iOS',
  referer: 'news.example',
  refererUrl: 'https://news.example/story',
  ua: 'Mozilla/5.0 (iPhone) Safari/604.1',
};
links[0] = {
  ...links[0]!,
  domain: 'Go.Brand.example',
  title: 'Launch',
  tags: ['launch', 'q3'],
  expiresAt: '2030-06-01T00:00:00.000Z',
  archived: true,
  clicks,
};

const fake = startDubFake({ links });
afterAll(() => fake.stop());

describe('dub source', () => {
  const source = sourceFor('dub', optionsFor(fake.url, fake.token).options);

  test('reads every link by cursor to the end and maps each field', async () => {
    const { links: read, pages } = await allLinks(source);
    expect(pages).toBe(2);
    expect(read.map((l) => l.sourceId)).toEqual(links.map((l) => l.id));
    expect(read[0]).toEqual({
      sourceId: 'link_0000',
      url: 'https://example.com/0',
      slug: 'd0',
      domain: 'go.brand.example',
      title: 'Launch',
      tags: ['launch', 'q3'],
      createdAt: Date.UTC(2024, 0, 1),
      expiresAt: Date.UTC(2030, 5, 1),
      clickLimit: null,
      archived: true,
      totalClicks: 1200,
      history: 'visits',
    });
    expect(fake.requests.some((r) => r.includes('startingAfter=link_0099'))).toBe(true);
  });

  test("a link's click events oldest first, every page, each field; a re-run only newer ones", async () => {
    const { links: read } = await allLinks(source);
    const { visits, batches } = await allVisits(source, read[0]!);
    expect(batches).toBe(2);
    expect(visits.map((v) => v.sourceId)).toEqual(clicks.map((c) => c.id));
    expect(visits[0]).toEqual({
      sourceId: 'click_0',
      at: Date.UTC(2024, 5, 1),
      referrer: 'https://news.example/story',
      userAgent: 'Mozilla/5.0 (iPhone) Safari/604.1',
      country: 'US',
      city: 'San Francisco',
      bot: null,
      device: 'Mobile',
      browser: 'Safari',
      os: 'iOS',
    });
    // Dub's "Unknown" and "(direct)" are unknown here.
    expect(visits[1]).toMatchObject({ country: null, city: null, referrer: null, userAgent: null, device: 'Desktop' });
    const after = Date.parse(clicks[1099]!.timestamp);
    expect((await allVisits(source, read[0]!, after)).visits.map((v) => v.sourceId)).toEqual(
      clicks.slice(1100).map((c) => c.id),
    );
    expect((await allVisits(source, read[1]!)).visits).toEqual([]);
  });

  test('on a plan without click events, each link carries its total', async () => {
    const pro = startDubFake({ links, plan: 'pro' });
    try {
      const page = await sourceFor('dub', optionsFor(pro.url, pro.token).options).page(null, never);
      expect(page.links[0]).toMatchObject({ history: 'total', totalClicks: 1200 });
    } finally {
      pro.stop();
    }
  });

  test("a 429 is waited out until the moment Dub's Retry-After names", async () => {
    const limited = startDubFake({ links, rateLimit: { every: 2 }, resetInMs: 5000 });
    try {
      const { options, waits } = optionsFor(limited.url, limited.token);
      expect((await allLinks(sourceFor('dub', options))).links).toHaveLength(150);
      expect(limited.refused).toBeGreaterThan(0);
      expect(waits).toHaveLength(limited.refused);
      // An epoch in milliseconds, read as the moment to wait for: at most the 5 s it was set ahead.
      for (const wait of waits) expect(wait).toBeLessThanOrEqual(5000);
    } finally {
      limited.stop();
    }
  });

  test('a refused key is a SourceError in Dub words, without the key', async () => {
    const wrong = 'dub_wrong_key_value';
    const error = await failure(sourceFor('dub', optionsFor(fake.url, wrong).options).check(never));
    expect(error.name).toBe('SourceError');
    expect(error.message).toContain('Dub refused the API key (401 unauthorized: Unauthorized: Invalid API key.)');
    expect(error.message).not.toContain(wrong);
  });
});
