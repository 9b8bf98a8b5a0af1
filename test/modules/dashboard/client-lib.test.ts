/**
 * The browser client's DOM-free rules: which URLs may become links, addresses without a scheme,
 * utm_ lifting and the params editor's rows, route matching, the return path after sign-in, and
 * how times read (UTC, labelled).
 */
import { describe, expect, test } from 'bun:test';
import { withScheme, withSchemes } from '../../../src/modules/dashboard/client/lib/destination';
import { formatUtc, formatUtcTicks, fromUtcInput, toUtcInput } from '../../../src/modules/dashboard/client/lib/format';
import { liftUtm, newRow, paramsFromRows, withParams } from '../../../src/modules/dashboard/client/lib/params';
import { matchPath, safeReturnPath } from '../../../src/modules/dashboard/client/lib/paths';
import { safeHref } from '../../../src/modules/dashboard/client/lib/safe-href';

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
