/**
 * The browser client's DOM-free rules: which URLs may become links, addresses without a scheme,
 * utm_ lifting and the params editor's rows, route matching, the return path after sign-in, how
 * times read (UTC, labelled), what a link's state says, the Status filter's choices, and the line
 * that says where a link's imported clicks came from.
 */
import { describe, expect, test } from 'bun:test';
import { withScheme, withSchemes } from '../../../src/modules/dashboard/client/lib/destination';
import { formatUtc, formatUtcTicks, fromUtcInput, toUtcInput } from '../../../src/modules/dashboard/client/lib/format';
import { importedLine } from '../../../src/modules/dashboard/client/lib/import-sources';
import {
  endedHint,
  type LinkState,
  stateBadges,
  stateSentences,
} from '../../../src/modules/dashboard/client/lib/link-state';
import { liftUtm, newRow, paramsFromRows, withParams } from '../../../src/modules/dashboard/client/lib/params';
import { matchPath, safeReturnPath } from '../../../src/modules/dashboard/client/lib/paths';
import { safeHref } from '../../../src/modules/dashboard/client/lib/safe-href';
import { statusOptions, withStatusValue } from '../../../src/modules/dashboard/client/lib/status-filter';

describe('safeHref', () => {
  test('passes http and https URLs', () => {
    expect(safeHref('https://example.com/a?b=1#c')).toBe('https://example.com/a?b=1#c');
    expect(safeHref('HTTP://Example.com')).toBe('http://example.com/');
  });

  test('refuses every other scheme, relative and malformed URLs', () => {
    for (const url of [
      'javascript:alert(1)',
      ' JavaScript:alert(1)',
      'java\tscript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      'mailto:a@example.com',
      '//evil.example/x',
      '/relative',
      'not a url',
      '',
      null,
      undefined,
    ]) {
      expect({ url, href: safeHref(url) }).toEqual({ url, href: undefined });
    }
  });
});

describe('utm lifting and params rows', () => {
  test('moves utm_ keys out of a destination, keeping the other query parts', () => {
    expect(liftUtm('https://example.com/p?utm_source=news&id=7&utm_medium=email')).toEqual({
      destination: 'https://example.com/p?id=7',
      utm: { utm_source: 'news', utm_medium: 'email' },
    });
  });

  test('leaves text without utm_ keys, or not a destination, alone', () => {
    expect(liftUtm('https://example.com/p?id=7')).toBeNull();
    expect(liftUtm('example.com/?utm_source=x')).toBeNull();
    expect(liftUtm('javascript:alert(1)//?utm_source=x')).toBeNull();
  });

  test('rows: lifted keys replace equal keys and are appended otherwise; empty keys are dropped', () => {
    const rows = [newRow('utm_source', 'old'), newRow('ref', 'a'), newRow('', '')];
    const next = withParams(rows, { utm_source: 'new', utm_medium: 'email' });
    expect(next.map((r) => [r.key, r.value])).toEqual([
      ['utm_source', 'new'],
      ['ref', 'a'],
      ['utm_medium', 'email'],
    ]);
    expect(paramsFromRows([...next, newRow('  ', 'ignored'), newRow(' k ', 'v')])).toEqual({
      utm_source: 'new',
      ref: 'a',
      utm_medium: 'email',
      k: 'v',
    });
  });
});

describe('paths', () => {
  test('matches patterns with :params, decoded', () => {
    expect(matchPath('/app/links/:id', '/app/links/lnk_1')).toEqual({ id: 'lnk_1' });
    expect(matchPath('/app/links/:id', '/app/links/a%20b')).toEqual({ id: 'a b' });
    expect(matchPath('/app', '/app')).toEqual({});
    expect(matchPath('/app/links/:id', '/app/links/x/stats')).toBeNull();
    expect(matchPath('/app/links/:id', '/app/links/%E0%A4%A')).toBeNull();
  });

  test('after sign-in, only dashboard paths are returned to', () => {
    expect(safeReturnPath('/app/links/x?y=1')).toBe('/app/links/x?y=1');
    expect(safeReturnPath('/app')).toBe('/app');
    for (const next of [
      null,
      '',
      'https://evil.example/app',
      '//evil.example/app',
      '/apps',
      '/api/v1/me',
      '/application',
    ]) {
      expect(safeReturnPath(next)).toBe('/app');
    }
  });
});

describe('addresses without a scheme', () => {
  test('a host name first (dotted, or localhost, with a port) is taken as https://', () => {
    expect(withScheme('acme.example/pricing')).toBe('https://acme.example/pricing');
    expect(withScheme('  www.acme.example  ')).toBe('https://www.acme.example');
    expect(withScheme('acme.example:8080/x?y=1#z')).toBe('https://acme.example:8080/x?y=1#z');
    expect(withScheme('bücher.example/x')).toBe('https://bücher.example/x');
    expect(withScheme('192.0.2.7/x')).toBe('https://192.0.2.7/x');
    expect(withScheme('localhost:3000/x')).toBe('https://localhost:3000/x');
    expect(withScheme('//acme.example/x')).toBe('https://acme.example/x');
  });

  test('anything with a scheme, or not a host, is left for the API to judge', () => {
    for (const text of [
      'https://acme.example/x',
      'http://acme.example',
      'ftp://acme.example/file',
      'mailto:a@acme.example',
      'javascript:alert(1)',
      'user:pass@acme.example',
      'not a url',
      'word',
      '/relative/path',
      '',
    ]) {
      expect({ text, completed: withScheme(text) }).toEqual({ text, completed: text });
    }
  });

  test("bulk text: each line's URL, the title after a tab kept as it is", () => {
    expect(withSchemes('acme.example/a\tA title\nhttps://acme.example/b\n\nword\tx.y/z')).toBe(
      'https://acme.example/a\tA title\nhttps://acme.example/b\n\nword\tx.y/z',
    );
  });
});

describe('times', () => {
  const at = Date.UTC(2026, 10, 26, 14, 5, 9);

  test('UTC, in one shape, labelled unless a heading says it', () => {
    expect(formatUtc(at)).toBe('2026-11-26 14:05 UTC');
    expect(formatUtc(at, 'second')).toBe('2026-11-26 14:05:09 UTC');
    expect(formatUtc(at, 'day')).toBe('2026-11-26 UTC');
    expect(formatUtc(at, 'minute', false)).toBe('2026-11-26 14:05');
  });

  test('axis ticks: days in full; hours with the day under the first and at each new day', () => {
    const day = Date.UTC(2026, 10, 26);
    expect(formatUtcTicks([day, day + 86_400_000], 'day')).toEqual(['2026-11-26', '2026-11-27']);
    const h = 3_600_000;
    expect(formatUtcTicks([day + 12 * h, day + 18 * h, day + 24 * h, day + 30 * h], 'hour')).toEqual([
      '12:00\n2026-11-26',
      '18:00',
      '00:00\n2026-11-27',
      '06:00',
    ]);
  });

  test('a datetime-local input is read and written as UTC', () => {
    expect(toUtcInput(at)).toBe('2026-11-26T14:05');
    expect(toUtcInput(null)).toBe('');
    expect(fromUtcInput('2026-11-26T14:05')).toBe(Date.UTC(2026, 10, 26, 14, 5));
    expect(fromUtcInput('')).toBeNull();
    expect(fromUtcInput('not a time')).toBeNull();
  });
});

describe("a link's state", () => {
  const at = Date.UTC(2026, 10, 20, 12, 0);
  const link = (state: Partial<LinkState>): LinkState => ({
    status: 'active',
    availability: 'live',
    expiresAt: null,
    clickLimit: null,
    clickCount: 0,
    fallbackUrl: null,
    ...state,
  });
  const fallbackUrl = 'https://example.com/ended';

  test('badges: what a visitor gets when it is not a redirect, then archived', () => {
    expect(stateBadges(link({}))).toEqual([]);
    expect(stateBadges(link({ status: 'paused', availability: 'paused' }))).toEqual([
      { label: 'Paused', tone: 'paused' },
    ]);
    expect(stateBadges(link({ availability: 'expired', expiresAt: at }))).toEqual([{ label: 'Expired', tone: 'gone' }]);
    expect(stateBadges(link({ availability: 'limit' }))).toEqual([{ label: 'Click limit reached', tone: 'gone' }]);
    expect(stateBadges(link({ status: 'archived' }))).toEqual([{ label: 'Archived', tone: 'archived' }]);
    expect(stateBadges(link({ status: 'archived', availability: 'limit' })).map((b) => b.label)).toEqual([
      'Click limit reached',
      'Archived',
    ]);
  });

  test('badges: an ended link with a fallback says where visitors go, in the non-error tone', () => {
    expect(stateBadges(link({ availability: 'expired', expiresAt: at, fallbackUrl }))).toEqual([
      { label: 'Expired: to fallback', tone: 'fallback' },
    ]);
    expect(stateBadges(link({ status: 'archived', availability: 'limit', fallbackUrl }))).toEqual([
      { label: 'Click limit reached: to fallback', tone: 'fallback' },
      { label: 'Archived', tone: 'archived' },
    ]);
    expect(stateBadges(link({ fallbackUrl }))).toEqual([]);
  });

  test('sentences: an ended link with a fallback names it, never the 410 page', () => {
    expect(stateSentences(link({ availability: 'expired', expiresAt: at, fallbackUrl }))).toEqual([
      'Expired: visitors go to the fallback URL https://example.com/ended since 2026-11-20 12:00 UTC, and no clicks are recorded.',
      'To send visitors to the destination again, set a later expiry or clear it under Details.',
    ]);
    expect(stateSentences(link({ availability: 'limit', clickLimit: 5, clickCount: 5, fallbackUrl }))).toEqual([
      'Click limit reached (5 of 5): visitors go to the fallback URL https://example.com/ended, and no more clicks are recorded.',
      'To send visitors to the destination again, raise the click limit or clear it under Details.',
    ]);
    expect(stateSentences(link({ clickLimit: 5, clickCount: 1, fallbackUrl }))).toEqual([
      'Active: the short link redirects and counts clicks.',
      'Click limit: 1 of 5 clicks used.',
      'Then visitors go to the fallback URL https://example.com/ended.',
    ]);
    expect(stateSentences(link({ fallbackUrl }))).toEqual(['Active: the short link redirects and counts clicks.']);
  });

  test("the expiry and limit hints follow the form's fallback address", () => {
    expect(endedHint('')).toBe('visitors get the 410 page (or the fallback address, if you set one)');
    expect(endedHint('  ')).toBe('visitors get the 410 page (or the fallback address, if you set one)');
    expect(endedHint('example.com/ended')).toBe('visitors go to the fallback address');
  });

  test('sentences: an active link past its expiry or limit says so, with the way out', () => {
    expect(stateSentences(link({ expiresAt: Date.UTC(2030, 0, 2, 3, 4), clickLimit: 1000, clickCount: 999 }))).toEqual([
      'Active: the short link redirects and counts clicks.',
      'It expires 2030-01-02 03:04 UTC.',
      `Click limit: ${(999).toLocaleString()} of ${(1000).toLocaleString()} clicks used.`,
    ]);
    expect(stateSentences(link({ availability: 'expired', expiresAt: at }))).toEqual([
      'Expired: visitors get the "Link no longer available" page since 2026-11-20 12:00 UTC, and no clicks are recorded.',
      'To make it redirect again, set a later expiry or clear it under Details.',
    ]);
    expect(
      stateSentences(link({ status: 'archived', availability: 'limit', clickLimit: 100, clickCount: 100 })),
    ).toEqual([
      'Click limit reached (100 of 100): visitors get the "Link no longer available" page, and no more clicks are recorded.',
      'To make it redirect again, raise the click limit or clear it under Details.',
      'It is also archived: hidden from the default list.',
    ]);
    expect(stateSentences(link({ status: 'archived' }))).toEqual([
      'Archived: hidden from the default list; the short link keeps redirecting and counting clicks.',
    ]);
  });
});

describe('the Status filter', () => {
  test('each choice is a status or an availability; the default is neither', () => {
    const { value, options } = statusOptions({});
    expect(value).toBe('');
    expect(options).toEqual([
      { value: '', label: 'Not archived' },
      { value: 'availability=live', label: 'Live (to its destination)' },
      { value: 'status=paused', label: 'Paused' },
      { value: 'availability=expired', label: 'Expired (to fallback or 410 page)' },
      { value: 'availability=limit', label: 'Click limit reached (to fallback or 410 page)' },
      { value: 'status=archived', label: 'Archived' },
    ]);
    expect(statusOptions({ availability: 'limit' }).value).toBe('availability=limit');
  });

  test('a choice replaces both filters and keeps the others', () => {
    const filters = { q: 'x', status: 'archived' as const, sort: 'clicks' as const };
    expect(withStatusValue(filters, 'availability=expired')).toEqual({
      q: 'x',
      status: undefined,
      availability: 'expired',
      sort: 'clicks',
    });
    expect(withStatusValue(filters, '')).toEqual({
      q: 'x',
      status: undefined,
      availability: undefined,
      sort: 'clicks',
    });
  });

  test('an address with a pair no choice names keeps it, named', () => {
    expect(statusOptions({ status: 'active' }).options.at(-1)).toEqual({ value: 'status=active', label: 'Active' });
    const both = statusOptions({ status: 'archived', availability: 'expired' });
    expect(both.value).toBe('status=archived&availability=expired');
    expect(both.options.at(-1)).toEqual({ value: both.value, label: 'Archived, expired' });
  });
});

describe("a link's imported history", () => {
  const at = Date.UTC(2026, 10, 20, 9, 30);
  const line = (history: 'visits' | 'daily' | 'total' | 'none', clicks: number, source = 'shlink') =>
    importedLine({ source, at, history, clicks }, '2026-11-20 UTC', clicks.toLocaleString('en'));

  test('says how many clicks, before when and from where', () => {
    expect(line('visits', 1234)).toBe('1,234 clicks before 2026-11-20 UTC imported from Shlink.');
    expect(line('visits', 1)).toBe('1 click before 2026-11-20 UTC imported from Shlink.');
    expect(line('daily', 40, 'bitly')).toBe(
      "40 clicks before 2026-11-20 UTC imported from Bitly, as counts per day: no visitors' details for them.",
    );
    expect(line('total', 7, 'csv')).toBe(
      '7 clicks before 2026-11-20 UTC imported from a CSV file, as a total: counted here, but in no chart or breakdown.',
    );
  });

  test('says so when no clicks came, and names a source it does not know as it is', () => {
    expect(line('none', 0, 'yourls')).toBe('Imported from YOURLS on 2026-11-20 UTC, without its clicks.');
    expect(line('visits', 0, 'slink')).toBe('Imported from another Slink on 2026-11-20 UTC: it had no clicks there.');
    expect(line('visits', 2, 'elsewhere')).toBe('2 clicks before 2026-11-20 UTC imported from elsewhere.');
  });
});
