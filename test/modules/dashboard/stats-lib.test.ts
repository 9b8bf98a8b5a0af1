/**
 * The statistics pages' DOM-free rules: the window kept in the address, the map's colour
 * buckets, how breakdown values (null included) read, how top links are named, and the
 * variant rows of a link and of the workspace.
 */
import { describe, expect, test } from 'bun:test';
import { MAP_BUCKETS, mapColours } from '../../../src/modules/dashboard/client/lib/map-buckets';
import { breakdownLabel, countryName } from '../../../src/modules/dashboard/client/lib/stats-labels';
import {
  rangeChoice,
  utcDay,
  windowOf,
  windowSearch,
  withBots,
  withDates,
  withRange,
} from '../../../src/modules/dashboard/client/lib/stats-window';
import { topLinkRows } from '../../../src/modules/dashboard/client/lib/top-links';
import { variantRows } from '../../../src/modules/dashboard/client/lib/variant-rows';

describe('the window in the address', () => {
  test('reads the four window fields, nothing else, and writes them back in a fixed order', () => {
    const w = windowOf(new URLSearchParams('bots=1&x=2&range=7d&cursor=abc&from='));
    expect(w).toEqual({ range: '7d', bots: '1' });
    expect(windowSearch(w)).toBe('?range=7d&bots=1');
    expect(windowSearch({})).toBe('');
  });

  test('a preset drops the dates, dates drop the range, bots survive both', () => {
    const dated = withDates({ range: '7d', bots: '1' }, '2026-11-01', '2026-11-20');
    expect(dated).toEqual({ from: '2026-11-01', to: '2026-11-20', bots: '1' });
    expect(rangeChoice(dated)).toBe('custom');
    expect(withRange(dated, '90d')).toEqual({ range: '90d', bots: '1' });
    expect(withDates({}, '', '2026-11-20')).toEqual({ from: undefined, to: '2026-11-20', bots: undefined });
    expect(withBots({ range: 'all' }, true)).toEqual({ range: 'all', bots: '1' });
    expect(windowSearch(withBots({ range: 'all', bots: '1' }, false))).toBe('?range=all');
  });

  test('no range in the address is the API default, 30d; a UTC day from epoch ms', () => {
    expect(rangeChoice({})).toBe('30d');
    expect(rangeChoice({ range: 'today' })).toBe('today');
    expect(utcDay(Date.UTC(2026, 10, 21, 23, 59))).toBe('2026-11-21');
  });
});

describe('map colours', () => {
  test('quantiles of the distinct counts; the top count is always the darkest', () => {
    expect(mapColours([{ value: 'GB', clicks: 3 }]).byCode).toEqual(new Map([['GB', MAP_BUCKETS]]));
    const two = mapColours([
      { value: 'GB', clicks: 9 },
      { value: 'US', clicks: 1 },
    ]);
    expect(two.byCode).toEqual(
      new Map([
        ['GB', 5],
        ['US', 3],
      ]),
    );
    const many = mapColours(
      Array.from({ length: 10 }, (_, i) => ({ value: `C${i}`, clicks: i + 1 })).concat([{ value: 'XX', clicks: 10 }]),
    );
    expect([...many.byCode.values()]).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 5]);
    expect(many.ranges).toEqual([
      { bucket: 1, min: 1, max: 2 },
      { bucket: 2, min: 3, max: 4 },
      { bucket: 3, min: 5, max: 6 },
      { bucket: 4, min: 7, max: 8 },
      { bucket: 5, min: 9, max: 10 },
    ]);
  });

  test('unknown countries and zero counts are not painted', () => {
    const colours = mapColours([
      { value: null, clicks: 40 },
      { value: 'FR', clicks: 0 },
    ]);
    expect(colours).toEqual({ byCode: new Map(), ranges: [] });
  });
});

describe('breakdown labels', () => {
  test('null reads as what it means for the breakdown', () => {
    expect(breakdownLabel('referrer', null)).toBe('Direct (no referrer)');
    expect(breakdownLabel('language', null)).toBe('Not given');
    expect(breakdownLabel('country', null)).toBe('Unknown');
    expect(breakdownLabel('city', null)).toBe('Unknown');
    expect(breakdownLabel('device', null)).toBe('Unknown');
    // A link's variant "": its clicks on the bare link and on codes that match no variant.
    expect(breakdownLabel('variant', '')).toBe('No variant (the link itself)');
  });

  test('codes get names, the code kept; anything else is the value itself', () => {
    expect(breakdownLabel('country', 'GB')).toBe('United Kingdom (GB)');
    expect(countryName('DE')).toBe('Germany');
    expect(breakdownLabel('country', 'not-a-code')).toBe('not-a-code');
    expect(breakdownLabel('language', 'de')).toBe('German (de)');
    expect(breakdownLabel('language', '<b>')).toBe('<b>');
    expect(breakdownLabel('device', 'mobile')).toBe('Mobile');
    expect(breakdownLabel('trafficType', 'email')).toBe('Email');
    expect(breakdownLabel('referrer', 'news.example.com')).toBe('news.example.com');
    expect(breakdownLabel('utm', '=cmd')).toBe('=cmd');
  });
});

describe('top links', () => {
  test('the title first and the slug under it; the slug alone without a title', () => {
    const rows = topLinkRows(
      [
        { id: 'l1', slug: 'x7Gq2Pa', title: 'Spring sale', clicks: 9 },
        { id: 'l 2', slug: 'docs', title: null, clicks: 4 },
        { id: 'l3', slug: 'b9TzQ0w', title: '', clicks: 2 },
      ],
      '?range=7d',
    );
    expect(rows).toEqual([
      { key: 'l1', label: 'Spring sale', note: 'x7Gq2Pa', href: '/app/links/l1/stats?range=7d', clicks: 9 },
      { key: 'l 2', label: 'docs', note: undefined, href: '/app/links/l%202/stats?range=7d', clicks: 4 },
      { key: 'l3', label: 'b9TzQ0w', note: undefined, href: '/app/links/l3/stats?range=7d', clicks: 2 },
    ]);
  });
});

describe('variant rows', () => {
  test("a link's: its own clicks named, codes as they are, no links", () => {
    expect(
      variantRows(
        [
          { value: '', clicks: 5 },
          { value: 'fb', clicks: 1 },
        ],
        '?range=7d',
      ),
    ).toEqual([
      { key: '', label: 'No variant (the link itself)', clicks: 5 },
      { key: 'fb', label: 'fb', clicks: 1 },
    ]);
  });

  test("the workspace's: slug/code, each leading to its link's statistics for the same window", () => {
    expect(
      variantRows(
        [
          { value: 'launch/fb', linkId: 'l 1', code: 'fb', clicks: 2 },
          { value: 'promo/fb', linkId: 'l2', code: 'fb', clicks: 1 },
        ],
        '?range=7d',
      ),
    ).toEqual([
      { key: 'l 1/fb', label: 'launch/fb', href: '/app/links/l%201/stats?range=7d', clicks: 2 },
      { key: 'l2/fb', label: 'promo/fb', href: '/app/links/l2/stats?range=7d', clicks: 1 },
    ]);
  });
});
