/** POST /links/{id}/rules/test: the request described, and the answer. */
import { t } from 'elysia';
import { fieldError } from '../../../http/errors';
import { nullable } from '../../../http/models';

const ANY_KEY = t.String({ pattern: '^[\\s\\S]*$' });

export const RulesTestBody = t.Object(
  {
    userAgent: t.Optional(
      t.String({
        maxLength: 512,
        description: 'The User-Agent header; device, os and browser rules read it.',
        error: fieldError('userAgent', 'userAgent must be a string of at most 512 characters'),
      }),
    ),
    ip: t.Optional(
      t.String({
        maxLength: 64,
        description: "The visitor's IPv4 or IPv6 address; country rules look it up in the geo database.",
        error: fieldError('ip', 'ip must be an IPv4 or IPv6 address'),
      }),
    ),
    language: t.Optional(
      t.String({
        maxLength: 256,
        description: 'The Accept-Language header (`fr-CH, fr;q=0.9, en;q=0.4`).',
        error: fieldError('language', 'language must be an Accept-Language value of at most 256 characters'),
      }),
    ),
    referrer: t.Optional(
      t.String({
        maxLength: 2048,
        description: 'The Referer header (a URL).',
        error: fieldError('referrer', 'referrer must be a string of at most 2048 characters'),
      }),
    ),
    query: t.Optional(
      t.Record(ANY_KEY, t.String({ maxLength: 2048 }), {
        maxProperties: 50,
        description: 'The query parameters of the short URL, by name.',
        error: fieldError('query', 'query must be an object of at most 50 string values'),
      }),
    ),
    at: t.Optional(
      t.Integer({
        minimum: 0,
        maximum: 253402300799999,
        description: 'When (epoch ms) the visit happens; default now.',
        error: fieldError('at', 'at must be epoch milliseconds'),
      }),
    ),
  },
  { title: 'RulesTestRequest' },
);
export type RulesTestInput = typeof RulesTestBody.static;

/** What the visit described would get, in the redirect's own order of checks. */
export const RULE_TEST_OUTCOMES = [
  'redirect',
  'preview',
  'password',
  'fallback',
  'paused',
  'expired',
  'limit',
] as const;
export type RuleTestOutcome = (typeof RULE_TEST_OUTCOMES)[number];

export const RulesTestModel = t.Object(
  {
    outcome: t.UnionEnum(RULE_TEST_OUTCOMES, {
      description:
        "What the visitor gets, checked in the redirect's order: `paused` (the 404 page), `expired` or `limit` (the 410 page: expiresAt passed, or clickLimit reached), `fallback` (either of those, sent to the fallbackUrl), `password` (the password form first; rule and location say where the right password leads), `preview` (a social-preview crawler of a link with a preview gets its card, which links to location), `redirect` (sent to location).",
    }),
    rule: nullable(t.Integer({ minimum: 0 }), {
      description:
        'The index (from 0) of the first rule whose conditions all hold, or null when none does or the rules are not reached (paused, expired, limit, fallback, preview).',
    }),
    location: nullable(t.String(), {
      description:
        "Where the visitor would be sent (the bare short link): the rule's destination with its params over the link's, or the link's own, the query added when the link forwards it; the fallbackUrl for `fallback`; null when a page is answered instead (paused, expired, limit).",
    }),
  },
  { title: 'RulesTest' },
);
export type RulesTest = typeof RulesTestModel.static;
