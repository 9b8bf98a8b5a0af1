/**
 * The link page's DOM-free rules for the link-rule fields: rules as the editor holds them and as
 * the API takes them, what Save sends (only what changed; a password only when typed or
 * removed), the preview's empty-means-none, where an API error about a rule belongs, the list's
 * feature badges and the rules test's query.
 */
import { describe, expect, test } from 'bun:test';
import type { Link, Rule } from '../../../src/modules/dashboard/client/api/types';
import { type LinkDraft, linkChanges, previewFrom } from '../../../src/modules/dashboard/client/lib/link-changes';
import { featureBadges } from '../../../src/modules/dashboard/client/lib/link-state';
import {
  draftFromRule,
  moved,
  queryObject,
  ruleErrorPlace,
  ruleFromDraft,
  rulesFromDrafts,
} from '../../../src/modules/dashboard/client/lib/rule-drafts';
import { ruleBreakdownRows, ruleMessage, ruleTestVerdict } from '../../../src/modules/dashboard/client/lib/rule-labels';

const FULL: Rule = {
  when: {
    device: ['mobile', 'tablet'],
    country: ['FR'],
    query: { ref: 'partner', promo: null },
    after: Date.UTC(2026, 11, 1, 8, 30),
    before: Date.UTC(2026, 11, 25),
  },
  destination: 'https://example.com/fr',
  params: { utm_source: 'rule' },
};

describe('rule drafts', () => {
  test('a rule survives the editor unchanged, times as UTC inputs', () => {
    const draft = draftFromRule(FULL);
    expect(draft.lists.device).toBe('mobile, tablet');
    expect(draft.after).toBe('2026-12-01T08:30');
    expect(draft.query.map((r) => [r.key, r.value, r.any])).toEqual([
      ['ref', 'partner', false],
      ['promo', '', true],
    ]);
    expect(ruleFromDraft(draft)).toEqual(FULL);
  });

  test('empty conditions are left out, keyless rows dropped, the scheme completed', () => {
    const draft = draftFromRule();
    draft.lists.os = ' iOS ,, Android ';
    draft.query = [{ id: 1, key: ' ', value: 'x', any: false }];
    draft.destination = ' example.com/ios ';
    expect(ruleFromDraft(draft)).toEqual({ when: { os: ['iOS', 'Android'] }, destination: 'https://example.com/ios' });
    expect(ruleFromDraft(draftFromRule())).toEqual({ when: {}, destination: '' });
  });

  test('moving keeps every draft and its id', () => {
    const drafts = [
      FULL,
      { ...FULL, destination: 'https://b.example/' },
      { ...FULL, destination: 'https://c.example/' },
    ].map((r) => draftFromRule(r));
    const [a, b, c] = drafts.map((d) => d.id);
    const next = moved(drafts, 2, 0);
    expect(next.map((d) => d.id)).toEqual([c, a, b] as number[]);
    expect(rulesFromDrafts(next).map((r) => r.destination)).toEqual([
      'https://c.example/',
      'https://example.com/fr',
      'https://b.example/',
    ]);
  });

  test("an API error's field names its rule and part", () => {
    expect(ruleErrorPlace('rules[2].when.country')).toEqual({ rule: 2, part: 'when.country' });
    expect(ruleErrorPlace('rules[0].destination')).toEqual({ rule: 0, part: 'destination' });
    expect(ruleErrorPlace('rules[11]')).toEqual({ rule: 11, part: '' });
    expect(ruleErrorPlace('rules')).toEqual({ rule: null, part: '' });
    for (const field of ['preview.image', 'rulesx', 'rules[x].destination', null])
      expect({ field, place: ruleErrorPlace(field) }).toEqual({ field, place: null });
  });

  test("the test's query text becomes an object", () => {
    expect(queryObject('?ref=partner&lang=fr&ref=other')).toEqual({ ref: 'partner', lang: 'fr' });
    expect(queryObject('a=1%202&b')).toEqual({ a: '1 2', b: '' });
  });
});

const LINK = {
  destination: 'https://example.com/',
  domain: 'sl.test',
  slug: 'abc',
  title: null,
  tags: [],
  projectId: null,
  expiresAt: null,
  clickLimit: null,
  params: {},
  fallbackUrl: null,
  redirectStatus: 302,
  forwardQuery: false,
  passwordProtected: false,
  preview: null,
  rules: [],
} as unknown as Link;

const UNCHANGED: LinkDraft = {
  destination: 'https://example.com/',
  domain: 'sl.test',
  slug: 'abc',
  title: null,
  tags: [],
  projectId: null,
  expiresAt: null,
  clickLimit: null,
  params: {},
  fallbackUrl: null,
  redirectStatus: 302,
  forwardQuery: false,
  password: undefined,
  preview: null,
  rules: [],
};

describe('what Save sends', () => {
  test('nothing when nothing changed', () => {
    expect(linkChanges(LINK, UNCHANGED)).toEqual({});
  });

  test('each new field when it changed', () => {
    const preview = { title: 'Card' };
    expect(
      linkChanges(LINK, {
        ...UNCHANGED,
        fallbackUrl: 'https://example.com/ended',
        redirectStatus: 308,
        forwardQuery: true,
        password: 'correct horse',
        preview,
        rules: [FULL],
      }),
    ).toEqual({
      fallbackUrl: 'https://example.com/ended',
      redirectStatus: 308,
      forwardQuery: true,
      password: 'correct horse',
      preview,
      rules: [FULL],
    });
  });

  test('another domain is sent with the link moving there, alone or with a new slug', () => {
    expect(linkChanges(LINK, { ...UNCHANGED, domain: 'go.example.com' })).toEqual({ domain: 'go.example.com' });
    expect(linkChanges(LINK, { ...UNCHANGED, domain: 'go.example.com', slug: 'spring' })).toEqual({
      domain: 'go.example.com',
      slug: 'spring',
    });
  });

  test('removing a password is sent only when there is one', () => {
    expect(linkChanges(LINK, { ...UNCHANGED, password: null })).toEqual({});
    expect(linkChanges({ ...LINK, passwordProtected: true }, { ...UNCHANGED, password: null })).toEqual({
      password: null,
    });
  });

  test('saved rules and preview in the same order are not sent again', () => {
    const link = { ...LINK, rules: [FULL], preview: { title: 'A', description: 'B' } } as Link;
    expect(linkChanges(link, { ...UNCHANGED, rules: [FULL], preview: previewFrom(' A ', 'B', '') })).toEqual({});
    expect(linkChanges(link, { ...UNCHANGED, rules: [], preview: null })).toEqual({ rules: [], preview: null });
  });

  test('a preview with every field empty is none', () => {
    expect(previewFrom(' ', '', '  ')).toBeNull();
    expect(previewFrom('', 'text', '')).toEqual({ title: '', description: 'text' });
  });
});

describe('feature badges', () => {
  test('protected, and the number of rules, in words', () => {
    expect(featureBadges({ passwordProtected: false, rules: [] })).toEqual([]);
    expect(featureBadges({ passwordProtected: true, rules: [FULL] }).map((b) => b.label)).toEqual([
      'Protected',
      '1 rule',
    ]);
    expect(featureBadges({ passwordProtected: false, rules: [FULL, FULL, FULL] }).map((b) => b.label)).toEqual([
      '3 rules',
    ]);
  });
});

describe('rule labels: numbered from 1 for a person', () => {
  test('API messages about rules[i] read Rule i+1; the breakdown names each rule and where it sends now', () => {
    expect(ruleMessage('rules[1].when.country: "Germany" is not a valid value')).toBe(
      'Rule 2 when.country: "Germany" is not a valid value',
    );
    expect(ruleMessage('rules[0].when.before must be later than after')).toBe(
      'Rule 1 when.before must be later than after',
    );
    expect(ruleMessage('title is too long')).toBe('title is too long');
    const rules: Rule[] = [{ when: {}, destination: 'https://example.com/a' }];
    expect(
      ruleBreakdownRows(
        [
          { value: 0, clicks: 3 },
          { value: 4, clicks: 1 },
        ],
        rules,
      ),
    ).toEqual([
      { key: '0', label: 'Rule 1', note: '→\u00a0https://example.com/a', clicks: 3 },
      { key: '4', label: 'Rule 5', note: "No longer among the link's rules", clicks: 1 },
    ]);
  });

  test('the rules test says what comes first: a page has no Location, a fallback or a password does', () => {
    expect(ruleTestVerdict({ outcome: 'redirect', rule: 1, location: 'https://e.com/' })).toEqual({
      says: 'Matched rule 2.',
      location: 'https://e.com/',
    });
    expect(ruleTestVerdict({ outcome: 'paused', rule: null, location: null }).location).toBeNull();
    expect(ruleTestVerdict({ outcome: 'limit', rule: null, location: null }).says).toContain('click limit');
    expect(ruleTestVerdict({ outcome: 'password', rule: null, location: 'https://e.com/' }).says).toBe(
      "Visitors are asked for the password first. No rule matched: the link's own destination.",
    );
  });
});
