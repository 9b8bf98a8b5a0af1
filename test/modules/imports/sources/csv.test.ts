import { describe, expect, test } from 'bun:test';
import { type ImportSource, type SourceLink, sourceFor } from '../../../../src/modules/imports/public';
import { allLinks, failure, never, optionsFor } from './support';

/** A file's bytes as a stream, `size` bytes a chunk (1: every boundary a chunk can fall on). */
function streamOf(text: string, size = 64 * 1024): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) controller.close();
      else {
        controller.enqueue(bytes.slice(at, at + size));
        at += size;
      }
    },
  });
}

function csv(text: string, size?: number): ImportSource {
  return sourceFor('csv', optionsFor(null, null, { file: streamOf(text, size) }).options);
}

const base: SourceLink = {
  sourceId: '',
  url: '',
  slug: null,
  domain: null,
  title: null,
  tags: [],
  createdAt: null,
  expiresAt: null,
  clickLimit: null,
  archived: false,
  totalClicks: null,
  history: 'none',
};

describe('csv source', () => {
  test("Bitly's export: branded short links, tags, created, engagements as the total", async () => {
    const file = [
      'Created,Title,Bitlink,Long URL,Tags,Engagements',
      '2024-02-03 04:05:06,"Sale, summer edition",brand.example/summer,https://example.com/sale?a=1&b=2,"promo,summer",17',
      '2024-02-04 00:00:00,,brand.example/x,https://example.com/x,,0',
    ].join('\n');
    const { links } = await allLinks(csv(file));
    expect(links).toEqual([
      {
        ...base,
        sourceId: 'brand.example/summer',
        url: 'https://example.com/sale?a=1&b=2',
        slug: 'summer',
        domain: 'brand.example',
        title: 'Sale, summer edition',
        tags: ['promo', 'summer'],
        createdAt: Date.UTC(2024, 1, 3, 4, 5, 6),
        totalClicks: 17,
        history: 'total',
      },
      {
        ...base,
        sourceId: 'brand.example/x',
        url: 'https://example.com/x',
        slug: 'x',
        domain: 'brand.example',
        createdAt: Date.UTC(2024, 1, 4),
        totalClicks: 0,
        history: 'total',
      },
    ]);
  });

  test("Dub's export: a BOM, CRLF, Short link, Destination URL, Link ID, archived", async () => {
    const file =
      '\uFEFFShort link,Destination URL,Clicks,Created at,Link ID,Tags,Archived\r\n' +
      'https://go.brand.example/launch,https://example.com/launch,42,2024-06-01T10:00:00.000Z,link_1,"launch,q3",true\r\n' +
      'https://dub.sh/abc,https://example.com/abc,0,2024-06-02T10:00:00.000Z,link_2,,false\r\n';
    const { links } = await allLinks(csv(file));
    expect(links).toEqual([
      {
        ...base,
        sourceId: 'link_1',
        url: 'https://example.com/launch',
        slug: 'launch',
        domain: 'go.brand.example',
        tags: ['launch', 'q3'],
        createdAt: Date.UTC(2024, 5, 1, 10),
        archived: true,
        totalClicks: 42,
        history: 'total',
      },
      {
        ...base,
        sourceId: 'link_2',
        url: 'https://example.com/abc',
        slug: 'abc',
        domain: 'dub.sh',
        createdAt: Date.UTC(2024, 5, 2, 10),
        totalClicks: 0,
        history: 'total',
      },
    ]);
  });

  test("Shlink's formats: the importer's (Long URL, Short code, Domain, Title, Tags with |) and the web client's export", async () => {
    const importer =
      'Long URL,Short code,Domain,Title,Tags\nhttps://example.com/a,abc,s.example,"The ""quoted"" one",one|two\n';
    expect((await allLinks(csv(importer))).links).toEqual([
      {
        ...base,
        sourceId: 's.example/abc',
        url: 'https://example.com/a',
        slug: 'abc',
        domain: 's.example',
        title: 'The "quoted" one',
        tags: ['one', 'two'],
      },
    ]);
    const exported =
      'createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits\n2024-01-01T00:00:00+00:00,,xyz,https://s.example/xyz,https://example.com/b,"Two\nlines",,9\n';
    expect((await allLinks(csv(exported))).links).toEqual([
      {
        ...base,
        sourceId: 'https://s.example/xyz',
        url: 'https://example.com/b',
        slug: 'xyz',
        domain: 's.example',
        title: 'Two\nlines',
        createdAt: Date.UTC(2024, 0, 1),
        totalClicks: 9,
        history: 'total',
      },
    ]);
  });

  test('any case and spacing of the destination; a row with no short address is known by its place', async () => {
    for (const name of ['LONG_URL', ' url ', 'Destination', 'TARGET', 'long url'])
      expect((await allLinks(csv(`${name};title\nhttps://example.com/;t\n`))).links).toEqual([
        { ...base, sourceId: 'row 1', url: 'https://example.com/', title: 't' },
      ]);
  });

  test('read a byte at a time: quotes, CRLF and UTF-8 across chunk edges come out whole', async () => {
    const file = 'url,title\r\nhttps://example.com/é,"a ""b"", c"\r\nhttps://example.com/2,"x\r\ny"\r\n';
    expect((await allLinks(csv(file, 1))).links.map((l) => [l.url, l.title])).toEqual([
      ['https://example.com/é', 'a "b", c'],
      ['https://example.com/2', 'x\r\ny'],
    ]);
  });

  test('a missing destination column is a clear error naming it and what the header has', async () => {
    const error = await failure(csv('Short URL,Title\nhttps://s.example/a,x\n').check(never));
    expect(error.name).toBe('SourceError');
    expect(error.field).toBe('file');
    expect(error.message).toContain('the CSV has no destination column');
    expect(error.message).toContain('"Long URL"');
    expect(error.message).toContain('"Short URL", "Title"');
  });

  test('a large file is streamed: a page reads only what it needs, and every row comes', async () => {
    const rows = 20_000;
    let made = 0;
    let pulls = 0;
    const encoder = new TextEncoder();
    const file = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        if (made === 0) controller.enqueue(encoder.encode('url,slug\n'));
        if (made >= rows) return controller.close();
        let chunk = '';
        for (let i = 0; i < 100 && made < rows; i++, made++) chunk += `https://example.com/${made},s${made}\n`;
        controller.enqueue(encoder.encode(chunk));
      },
    });
    const source = sourceFor('csv', optionsFor(null, null, { file }).options);
    const first = await source.page(null, never);
    expect(first.links).toHaveLength(500);
    expect(pulls).toBeLessThan(20);
    let count = first.links.length;
    let cursor = first.next;
    while (cursor !== null) {
      const page = await source.page(cursor, never);
      count += page.links.length;
      cursor = page.next;
    }
    expect(count).toBe(rows);
  });

  test('a resumed run passes over the rows already done', async () => {
    const file = `url\n${Array.from({ length: 1200 }, (_, i) => `https://example.com/${i}`).join('\n')}\n`;
    const page = await csv(file).page('1000', never);
    expect(page.links.map((l) => l.url)).toEqual(
      Array.from({ length: 200 }, (_, i) => `https://example.com/${1000 + i}`),
    );
    expect(page.links[0]!.sourceId).toBe('row 1001');
    expect(page.next).toBeNull();
  });
});
