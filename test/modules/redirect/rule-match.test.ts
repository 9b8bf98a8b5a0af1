/**
 * Rule evaluation in memory (redirect/rules): compiled once, matched per request without I/O.
 * The behaviour through the app, on both engines, is rules.test.ts; this holds the edges of each
 * condition and what a request costs (which facts are read).
 */
import { describe, expect, test } from 'bun:test';
import { acceptedLanguages, type GeoLookup } from '../../../src/modules/clicks/public';
import type { Rule } from '../../../src/modules/links/rules';
import { compileRules, ruleHost } from '../../../src/modules/redirect/rules/compile';
import { matchRule, ruleTargetFor } from '../../../src/modules/redirect/rules/match';
import { type RuleRequest, RuleVisitor } from '../../../src/modules/redirect/rules/visitor';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

function request(over: Partial<RuleRequest> = {}): RuleRequest {
  return { userAgent: null, address: null, acceptLanguage: null, referrer: null, rawQuery: '', now: 0, ...over };
}

/** A geo lookup that counts its calls and answers `country` for every address. */
function countingGeo(country: string | null) {
  const calls: (string | null)[] = [];
  const geo: GeoLookup = {
    source: 'test',
    mappedBytes: 0,
    lookup: (address) => {
      calls.push(address);
      return { country, city: null };
    },
  };
  return { calls, geo: () => geo };
}

function first(rules: Rule[], over: Partial<RuleRequest>, country: string | null = null): number | null {
  const compiled = compileRules(rules, {});
  return matchRule(compiled, new RuleVisitor(request(over), countingGeo(country).geo))?.index ?? null;
}

const rule = (when: Rule['when']): Rule => ({ when, destination: 'https://example.com/r' });

describe('conditions', () => {
  test('language: languages and language-regions of entries weighted 0.5 or more', () => {
    expect(acceptedLanguages('fr-CH, fr;q=0.9, EN;q=0.5, de;q=0.49, *;q=0.8')).toEqual(['fr', 'fr-ch', 'en']);
    expect(acceptedLanguages('zh-Hant-TW, es-419;q=0.6, en-GB-oxendict')).toEqual([
      'zh',
      'zh-tw',
      'es',
      'es-419',
      'en',
      'en-gb',
    ]);
    expect(acceptedLanguages('x_y, ;q=1')).toEqual([]);
    // A language-region rule: that region only. A language rule: every region of it.
    expect(first([rule({ language: ['en-GB'] })], { acceptLanguage: 'en-GB;q=0.5' })).toBe(0);
    expect(first([rule({ language: ['EN-gb'] })], { acceptLanguage: 'en-gb' })).toBe(0);
    expect(first([rule({ language: ['en-GB'] })], { acceptLanguage: 'en-US, en' })).toBeNull();
    expect(first([rule({ language: ['en-GB'] })], { acceptLanguage: 'fr, en-GB;q=0.4' })).toBeNull();
    expect(first([rule({ language: ['en'] })], { acceptLanguage: 'en-US;q=0.5' })).toBe(0);
    expect(first([rule({ language: ['en'] })], { acceptLanguage: 'en;q=0.4, fr' })).toBeNull();
  });

  test('referrer: the host and its subdomains, www. and case ignored; a rule may give a URL', () => {
    expect(ruleHost('https://WWW.Example.com:8443/path?q')).toBe('example.com');
    expect(ruleHost('example.com.')).toBe('example.com');
    const r = [rule({ referrer: ['example.com'] })];
    expect(first(r, { referrer: 'https://example.com/x' })).toBe(0);
    expect(first(r, { referrer: 'https://a.b.EXAMPLE.com/' })).toBe(0);
    expect(first(r, { referrer: 'https://badexample.com/' })).toBeNull();
    expect(first(r, { referrer: 'https://example.com.evil.net/' })).toBeNull();
    expect(first(r, { referrer: 'not a url' })).toBeNull();
  });

  test('query: a value compared case-insensitively (any of a repeated key), null for any value present', () => {
    const r = [rule({ query: { ref: 'Mail', 'a b': null } })];
    expect(first(r, { rawQuery: 'ref=x&ref=MAIL&a+b' })).toBe(0);
    expect(first(r, { rawQuery: 'ref=mail' })).toBeNull();
    expect(first(r, { rawQuery: 'REF=mail&a%20b=1' })).toBeNull();
  });

  test('after and before: after from that instant, before until just before it', () => {
    const r = [rule({ after: 100, before: 200 })];
    expect([99, 100, 199, 200].map((now) => first(r, { now }))).toEqual([null, 0, 0, null]);
  });

  test('device, os, browser and country compare case-insensitively', () => {
    expect(first([rule({ device: ['Mobile'], os: ['IOS'], browser: ['mobile SAFARI'] })], { userAgent: IPHONE })).toBe(
      0,
    );
    expect(first([rule({ country: ['de'] })], {}, 'DE')).toBe(0);
    expect(first([rule({ country: ['de'] })], {}, null)).toBeNull();
  });
});

describe('cost', () => {
  test('the geo database is asked only when a rule that reached it has a country condition', () => {
    const { calls, geo } = countingGeo('DE');
    const compiled = compileRules([rule({ device: ['tablet'], country: ['DE'] }), rule({ os: ['Android'] })], {});
    expect(matchRule(compiled, new RuleVisitor(request({ userAgent: IPHONE, address: '1.2.3.4' }), geo))).toBeNull();
    expect(calls).toEqual([]);
    const withCountry = compileRules([rule({ country: ['FR'] }), rule({ country: ['DE'] })], {});
    expect(matchRule(withCountry, new RuleVisitor(request({ address: '1.2.3.4' }), geo))?.index).toBe(1);
    // One lookup per request, however many rules read it.
    expect(calls).toEqual(['1.2.3.4']);
  });

  test("a rule's bare Location is built at compile time; a variant's once per code", () => {
    const compiled = compileRules([{ when: {}, destination: 'https://example.com/r?a=1', params: { b: '2' } }], {
      utm_source: 'x',
    });
    const r = compiled.list[0]!;
    expect(r.target.location).toBe('https://example.com/r?a=1&utm_source=x&b=2');
    expect(r.target.paramsJson).toBe('{"utm_source":"x","b":"2"}');
    expect(ruleTargetFor(r, null, null)).toBe(r.target);
    const v = ruleTargetFor(r, 'v', '{"utm_source":"x","v":"1"}');
    expect(v.location).toBe('https://example.com/r?a=1&utm_source=x&v=1&b=2');
    expect(ruleTargetFor(r, 'v', '{"utm_source":"x","v":"1"}')).toBe(v);
    expect(v.serial).not.toBe(r.target.serial);
  });
});
