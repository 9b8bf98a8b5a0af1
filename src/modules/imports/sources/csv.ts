/**
 * A CSV file: one link a row, its header naming the columns (any case, spacing or punctuation:
 * `Long URL`, `long_url` and `longUrl` are one name). The destination column is required
 * (`Long URL`, `url`, `destination`, `Destination URL`, `target`); the others are read when
 * present: the short URL or the slug and domain, title, tags (`|` or `,` between them), created,
 * clicks (the link's starting total), archived, and an id to know the row again on a re-run.
 * Bitly's, Dub's and Shlink's exports read as they are. The file is streamed: a page at a time.
 */

import type { ImportSource, SourceLink, SourceOptions, SourcePage } from '../source';
import { SourceError } from '../source';
import { csvRecords } from './csv-reader';
import { hostOf, num, pathOf, time } from './fields';

const PAGE_SIZE = 500;

/** Each column the source reads, by its header names once normalised (lowercase, letters and digits only). */
const COLUMNS = {
  url: ['longurl', 'url', 'destination', 'destinationurl', 'target', 'targeturl', 'originalurl'],
  short: ['shorturl', 'shortlink', 'link', 'bitlink', 'shortenedurl'],
  slug: ['slug', 'shortcode', 'key', 'backhalf', 'custombackhalf', 'keyword', 'alias'],
  domain: ['domain', 'shortdomain'],
  title: ['title'],
  tags: ['tags', 'tag'],
  created: ['created', 'createdat', 'datecreated', 'createddate', 'creationdate', 'timestamp'],
  clicks: ['clicks', 'visits', 'totalclicks', 'engagements', 'totalengagements', 'visitcount', 'hits'],
  archived: ['archived'],
  id: ['id', 'linkid'],
} as const;

type Column = keyof typeof COLUMNS;

const normalise = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

function columnsOf(header: string[]): Partial<Record<Column, number>> {
  const names = header.map(normalise);
  const found: Partial<Record<Column, number>> = {};
  for (const column of Object.keys(COLUMNS) as Column[]) {
    for (const alias of COLUMNS[column]) {
      const at = names.indexOf(alias);
      if (at !== -1) {
        found[column] = at;
        break;
      }
    }
  }
  return found;
}

/** Tags as exports write them: `a|b`, `a, b`, or a JSON array. */
function tagsOf(value: string): string[] {
  const text = value.trim();
  if (text === '') return [];
  if (text.startsWith('[')) {
    try {
      const list: unknown = JSON.parse(text);
      if (Array.isArray(list)) return list.filter((t): t is string => typeof t === 'string' && t.trim() !== '');
    } catch {}
  }
  return text
    .split(text.includes('|') ? '|' : ',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

export function csvLink(row: string[], columns: Partial<Record<Column, number>>, rowNumber: number): SourceLink {
  const cell = (column: Column): string | null => {
    const at = columns[column];
    const value = at === undefined ? undefined : row[at]?.trim();
    return value === undefined || value === '' ? null : value;
  };
  const short = cell('short');
  const slug = cell('slug') ?? (short === null ? null : pathOf(short));
  const domain = cell('domain')?.toLowerCase() ?? (short === null ? null : hostOf(short));
  const clicks = num(cell('clicks'));
  const id = cell('id') ?? short ?? (slug === null ? null : domain === null ? slug : `${domain}/${slug}`);
  return {
    // The row's own id, its short address, or (neither given) its place and destination: a
    // re-run of the same file knows it again, and another file's row at that place is not it.
    sourceId: id ?? `row ${rowNumber} ${cell('url') ?? ''}`.trimEnd(),
    url: cell('url') ?? '',
    slug,
    domain,
    title: cell('title'),
    tags: tagsOf(cell('tags') ?? ''),
    createdAt: time(cell('created')),
    expiresAt: null,
    clickLimit: null,
    archived: /^(true|yes|1)$/i.test(cell('archived') ?? ''),
    totalClicks: clicks,
    history: clicks === null ? 'none' : 'total',
  };
}

export function csvSource(options: SourceOptions): ImportSource {
  const file = options.file;
  if (file === null) throw new SourceError('csv needs a file: the CSV to read', false, 'file');
  const records = csvRecords(file);
  let columns: Partial<Record<Column, number>> | null = null;
  /** Data rows read so far (the cursor counts them). */
  let read = 0;
  let ahead: string[] | null = null;
  let ended = false;

  async function header(): Promise<Partial<Record<Column, number>>> {
    if (columns !== null) return columns;
    const first = await records.next();
    if (first.done) throw new SourceError('the CSV is empty: it needs a header row naming its columns', false, 'file');
    const found = columnsOf(first.value);
    if (found.url === undefined)
      throw new SourceError(
        `the CSV has no destination column: name one "Long URL", "long_url", "url", "destination" or "target" (its header has: ${first.value.map((h) => `"${h.trim()}"`).join(', ')})`,
        false,
        'file',
      );
    columns = found;
    return found;
  }

  async function next(): Promise<string[] | null> {
    if (ahead !== null) {
      const row = ahead;
      ahead = null;
      return row;
    }
    if (ended) return null;
    const r = await records.next();
    if (r.done) {
      ended = true;
      return null;
    }
    return r.value;
  }

  return {
    name: 'csv',
    idsAreRows: true,
    async check() {
      await header();
    },
    async page(cursor): Promise<SourcePage> {
      const cols = await header();
      const from = cursor === null ? 0 : Number(cursor);
      if (!Number.isInteger(from) || from < read)
        throw new SourceError(`csv: the file is read once, from its start; ${cursor} is behind it`, false);
      // A resumed run reads the file again from its start: the rows already done are passed over.
      while (read < from && (await next()) !== null) read++;
      const links: SourceLink[] = [];
      while (links.length < PAGE_SIZE) {
        const row = await next();
        if (row === null) break;
        read++;
        links.push(csvLink(row, cols, read));
      }
      ahead = await next();
      return { links, next: ahead === null ? null : String(read) };
    },
  };
}
