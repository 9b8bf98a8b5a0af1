/**
 * The spill file keeps the link rule a click matched (capture/spill-format.ts): a line written
 * now carries it, and lines written before link rules (with `v` and without, the older
 * release's captured clicks) read as clicks no rule chose. Bad values make the line unreadable.
 */
import { expect, test } from 'bun:test';
import { clickLine, parseSpillLine } from '../../../src/modules/clicks/capture/spill-format';
import type { EnrichedClick } from '../../../src/modules/clicks/enrich/enrich';

const CLICK: EnrichedClick = {
  serial: 7,
  linkId: 'lnk_spill',
  variantId: null,
  code: null,
  rule: 2,
  time: Date.UTC(2026, 10, 21, 12),
  day: 20778,
  bot: false,
  destination: 'https://example.com/r2',
  params: { utm_source: 'rule' },
  paramsJson: '{"utm_source":"rule"}',
  country: 'DE',
  city: null,
  device: 'mobile',
  os: 'iOS',
  browser: 'Mobile Safari',
  referrer: null,
  trafficType: 'direct',
  language: 'de',
  visitorHash: '0123456789abcdef',
};

test('a spilled click keeps its rule; a line from before rules reads as no rule; a bad rule is refused', () => {
  const line = clickLine(CLICK);
  expect(JSON.parse(line).rule).toBe(2);
  expect(parseSpillLine(line)).toEqual({ kind: 'enriched', click: { ...CLICK, serial: 0 } });
  const { rule: _rule, ...old } = JSON.parse(line) as Record<string, unknown>;
  expect(parseSpillLine(JSON.stringify(old))).toEqual({ kind: 'enriched', click: { ...CLICK, serial: 0, rule: null } });
  expect(parseSpillLine(JSON.stringify({ ...old, rule: -1 }))).toBeNull();
  expect(parseSpillLine(JSON.stringify({ ...old, rule: '1' }))).toBeNull();
  // The older release's captured click (no `v`, no rule): read, with no rule.
  const captured = {
    time: CLICK.time,
    linkId: 'lnk_spill',
    variantId: null,
    code: null,
    location: 'https://example.com/',
    paramsJson: '{}',
    address: '10.0.0.1',
    userAgent: 'curl/8',
    referrer: null,
    acceptLanguage: null,
    bot: true,
  };
  const entry = parseSpillLine(JSON.stringify(captured));
  expect(entry?.kind).toBe('captured');
  expect(entry?.kind === 'captured' ? (entry.click.rule ?? null) : 'none').toBeNull();
});
