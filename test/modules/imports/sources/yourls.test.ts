import { afterAll, describe, expect, test } from 'bun:test';
import { sourceFor } from '../../../../src/modules/imports/public';
import { startYourlsFake, type YourlsLinkSeed } from '../../../fakes/yourls';
import { allLinks, failure, never, optionsFor } from './support';

const links: YourlsLinkSeed[] = Array.from({ length: 1500 }, (_, i) => ({
  keyword: `y${i}`,
  url: `https://example.com/${i}`,
  timestamp: new Date(Date.UTC(2023, 0, 1) + i * 60_000).toISOString().slice(0, 19).replace('T', ' '),
  clicks: i % 7,
}));
links[0] = { ...links[0]!, title: 'Première page', clicks: 12 };

// In a folder, as YOURLS often is: the keyword is what follows its address.
const fake = startYourlsFake({ links, folder: '/s', username: 'admin', password: 'p@ss:word' });
afterAll(() => fake.stop());

describe('yourls source', () => {
  test('reads every link, page after page keyed link_1..., each with its total', async () => {
    const source = sourceFor('yourls', optionsFor(fake.site, fake.signature).options);
    const { links: read, pages } = await allLinks(source);
    expect(pages).toBe(2);
    expect(read).toHaveLength(1500);
    expect(new Set(read.map((l) => l.slug)).size).toBe(1500);
    expect(read.find((l) => l.slug === 'y0')).toEqual({
      sourceId: `${fake.site}/y0`,
      url: 'https://example.com/0',
      slug: 'y0',
      domain: '127.0.0.1',
      title: 'Première page',
      tags: [],
      createdAt: Date.UTC(2023, 0, 1),
      expiresAt: null,
      clickLimit: null,
      archived: false,
      totalClicks: 12,
      history: 'total',
    });
    expect(read.find((l) => l.slug === 'y8')).toMatchObject({ title: null, totalClicks: 1 });
  });

  test('username:password works as well as the signature', async () => {
    const source = sourceFor('yourls', optionsFor(fake.site, 'admin:p@ss:word').options);
    await source.check(never);
    expect((await source.page(null, never)).links).toHaveLength(1000);
  });

  test('a YOURLS with no links answers without `links`: an empty page, the end', async () => {
    const empty = startYourlsFake({ links: [] });
    try {
      const source = sourceFor('yourls', optionsFor(empty.site, empty.signature).options);
      expect(await source.page(null, never)).toEqual({ links: [], next: null });
    } finally {
      empty.stop();
    }
  });

  test('a refused signature or password is a SourceError in YOURLS words, without the secret', async () => {
    const bad = await failure(sourceFor('yourls', optionsFor(fake.site, 'wrongsignature').options).check(never));
    expect(bad.message).toContain('YOURLS refused the credentials (403 Please log in)');
    expect(bad.message).not.toContain('wrongsignature');
    const badPassword = await failure(
      sourceFor('yourls', optionsFor(fake.site, 'admin:secret-pw').options).check(never),
    );
    expect(badPassword.message).toContain('403 Invalid username or password');
    expect(badPassword.message).not.toContain('secret-pw');
  });
});
