/**
 * The link-rule fields (docs/behaviour.md, "Link rules"): the schemas of Rule and Preview (the
 * single source for validation, types and OpenAPI) and the checks a schema cannot say: rule
 * destinations follow the destination rules (own hosts refused, utm_ keys lifted into the
 * rule's params), list values are trimmed and deduplicated, and every message names the field
 * down to the rule's index (`rules[2].when.country`).
 */
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { fieldError } from '../../http/errors';
import { nullable, ParamsModel } from '../../http/models';
import { invalid } from '../../lib/errors';
import { checkParams } from '../../lib/params';
import { hasControlChars } from '../../lib/text';
import { MAX_INSTANT } from '../../lib/time';
import { normalizeLinkDestination, type SlinkHosts } from './own-host';
import { KNOWN_BROWSERS, KNOWN_OS, RULE_DEVICES } from './rule-names';

export const RULE_LIMITS = { rules: 20, values: 50, valueLength: 256, queryKeys: 20 } as const;
export const PREVIEW_LIMITS = { title: 200, description: 1000, image: 2048 } as const;
export const PASSWORD_LIMITS = { min: 8, max: 128 } as const;

const list = (name: string, description: string) =>
  t.Optional(
    t.Array(
      t.String({
        maxLength: RULE_LIMITS.valueLength,
        error: fieldError(
          `when.${name}`,
          `when.${name} values are strings of up to ${RULE_LIMITS.valueLength} characters`,
        ),
      }),
      {
        maxItems: RULE_LIMITS.values,
        description,
        error: fieldError(
          `when.${name}`,
          `when.${name} must be an array of at most ${RULE_LIMITS.values} strings of up to ${RULE_LIMITS.valueLength} characters`,
        ),
      },
    ),
  );

const Instant = (name: string, description: string) =>
  t.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_INSTANT,
      description,
      error: fieldError(`when.${name}`, `when.${name} must be epoch milliseconds up to the year 9999`),
    }),
  );

export const RuleWhenModel = t.Object(
  {
    device: list(
      'device',
      `Any of: ${RULE_DEVICES.join(', ')} (the device breakdown names, case aside); any other value is refused.`,
    ),
    os: list(
      'os',
      `Operating system names as the os breakdown shows them (${KNOWN_OS.join(', ')}, ...), compared without case, spaces, dashes or underscores (macOS is Mac OS).`,
    ),
    browser: list(
      'browser',
      `Browser names as the browser breakdown shows them (${KNOWN_BROWSERS.join(', ')}, ...), compared without case, spaces, dashes or underscores; a name also matches its Mobile form (Safari matches the Mobile Safari of iPhones and iPads).`,
    ),
    country: list('country', 'ISO 3166-1 alpha-2 country codes, from the visitor address (the geo database).'),
    language: list(
      'language',
      'Languages (en, fr, ...) or language-region tags (en-GB, de-AT, es-419), matched against the Accept-Language entries weighted q >= 0.5: a language matches every entry of it (en: en, en-US, en-GB), a language-region only that region (en-GB: en-GB, not en-US nor en).',
    ),
    referrer: list(
      'referrer',
      "Referrer host names (the Referer header's host), each matching its subdomains too; twitter.com and x.com also match t.co, the host X's links arrive from.",
    ),
    query: t.Optional(
      t.Record(
        t.String(),
        nullable(t.String({ maxLength: RULE_LIMITS.valueLength }), {
          error: fieldError(
            'when.query',
            `when.query values must be strings of up to ${RULE_LIMITS.valueLength} characters, or null`,
          ),
        }),
        {
          maxProperties: RULE_LIMITS.queryKeys,
          description: `The visitor's query: each key must be present with this value (case-insensitive), or with any value for null. At most ${RULE_LIMITS.queryKeys} keys.`,
          error: fieldError(
            'when.query',
            `when.query must be an object of at most ${RULE_LIMITS.queryKeys} keys whose values are strings or null`,
          ),
        },
      ),
    ),
    after: Instant('after', 'Holds from this instant on (epoch ms, inclusive).'),
    before: Instant('before', 'Holds until this instant (epoch ms, exclusive).'),
  },
  {
    // Kept through validation's cleaning (which would drop an unknown key and leave a rule that
    // matches everybody) and refused by normalizeRules, naming the key.
    additionalProperties: t.Unknown(),
    description:
      'Every condition given must hold; inside one list any value may match; values compare case-insensitively. An empty when always matches.',
    error: fieldError('when', 'when must be an object of the documented conditions only'),
  },
);
export type RuleWhen = typeof RuleWhenModel.static;

export const RuleModel = t.Object(
  {
    when: RuleWhenModel,
    destination: t.String({
      description: 'Absolute http(s) URL, same rules as the link destination (utm_ keys move into params).',
      error: fieldError('destination', 'a rule destination must be a string'),
    }),
    params: t.Optional(ParamsModel),
  },
  {
    additionalProperties: false,
    title: 'Rule',
    error: fieldError('rules', 'each rule must be {when, destination, params?}'),
  },
);
export type Rule = typeof RuleModel.static;

export const RulesField = t.Array(RuleModel, {
  maxItems: RULE_LIMITS.rules,
  description: `At most ${RULE_LIMITS.rules} rules, evaluated in order on every redirect; the first whose conditions all hold sends the visitor to its destination (its params layered over the effective params), otherwise the link's own destination is used. [] removes them.`,
  error: fieldError('rules', `rules must be an array of at most ${RULE_LIMITS.rules} rules`),
});

export const PreviewModel = t.Object(
  {
    // Lengths are checked by normalizePreview, which names the field (a failure inside the
    // nullable union would be reported as the whole preview's).
    title: t.String({
      description: `1 to ${PREVIEW_LIMITS.title} characters.`,
      error: fieldError('preview.title', 'preview.title must be a string'),
    }),
    description: t.Optional(
      t.String({
        description: `At most ${PREVIEW_LIMITS.description} characters.`,
        error: fieldError('preview.description', 'preview.description must be a string'),
      }),
    ),
    image: t.Optional(
      t.String({
        description: `Absolute http(s) URL of the image, at most ${PREVIEW_LIMITS.image} characters; without one the card is a small summary.`,
        error: fieldError('preview.image', 'preview.image must be an absolute http(s) URL'),
      }),
    ),
  },
  {
    title: 'Preview',
    description:
      'What social-preview crawlers are shown instead of the redirect (never while the link has a password): title required, description and image optional.',
    error: fieldError('preview', 'preview must be {title, description?, image?} or null'),
  },
);
export type Preview = typeof PreviewModel.static;

export const PasswordField = nullable(t.String({ minLength: PASSWORD_LIMITS.min, maxLength: PASSWORD_LIMITS.max }), {
  description: `Write-only. ${PASSWORD_LIMITS.min} to ${PASSWORD_LIMITS.max} characters: the short link asks for it before redirecting. A browser gets a form (posting the field \`password\`) and, once right, an unlock cookie that spares the form for an hour; an API client may send it in the \`X-Slink-Password\` header of the GET (wrong: 401 \`password_wrong\`). The right password answers the link's redirect and records the click; more than 10 wrong answers for the link from one client address in 15 minutes answer 429. Stored only as an argon2id hash, never returned (see passwordProtected). Changing it or setting null (no password) ends every unlock cookie of the link. It wins over a \`preview\`: social-preview crawlers get the form too, and the preview is not shown while a password is set.`,
  error: fieldError(
    'password',
    `password must be a string of ${PASSWORD_LIMITS.min} to ${PASSWORD_LIMITS.max} characters, or null`,
  ),
});

const LIST_CONDITIONS = ['device', 'os', 'browser', 'country', 'language', 'referrer'] as const;
const CONDITIONS = new Set<string>([...LIST_CONDITIONS, 'query', 'after', 'before']);
const DEVICES = new Set<string>(RULE_DEVICES);

/** One list condition's values: trimmed, non-empty, repeats (case-insensitive) dropped. */
function checkedList(values: readonly string[], field: string, shape?: RegExp): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of values) {
    const value = raw.trim();
    if (value === '' || hasControlChars(value))
      throw invalid(field, `${field} holds an empty value or control characters`);
    if (shape !== undefined && !shape.test(value)) throw invalid(field, `${field}: "${value}" is not a valid value`);
    if (seen.has(value.toLowerCase())) continue;
    seen.add(value.toLowerCase());
    out.push(value);
  }
  return out;
}

const SHAPES: Partial<Record<(typeof LIST_CONDITIONS)[number], RegExp>> = {
  country: /^[A-Za-z]{2}$/,
  // A language, and a region (two letters, or three digits as in es-419) if any.
  language: /^[A-Za-z]{1,8}(?:-(?:[A-Za-z]{2}|[0-9]{3}))?$/,
  // A host name, no scheme, path or port.
  referrer: /^[A-Za-z0-9.-]+$/,
};

/** The rules as stored: checked, destinations normalized, utm_ keys moved into params. */
export function normalizeRules(rules: readonly Rule[], slinkHosts: SlinkHosts): Rule[] {
  return rules.map((rule, i) => {
    const at = `rules[${i}]`;
    const when: RuleWhen = {};
    for (const key of Object.keys(rule.when))
      if (!CONDITIONS.has(key))
        throw invalid(`${at}.when.${key}`, `${at}.when.${key} is not a condition (${[...CONDITIONS].join(', ')})`);
    for (const name of LIST_CONDITIONS) {
      const values = rule.when[name];
      if (values !== undefined) when[name] = checkedList(values, `${at}.when.${name}`, SHAPES[name]);
    }
    // A device is one of a few names: any other would never match (phone is mobile).
    for (const device of when.device ?? [])
      if (!DEVICES.has(device.toLowerCase()))
        throw invalid(
          `${at}.when.device`,
          `${at}.when.device: "${device}" is not a device (${RULE_DEVICES.join(', ')})`,
        );
    if (rule.when.query !== undefined) {
      for (const [key, value] of Object.entries(rule.when.query))
        if (key === '' || hasControlChars(key) || (value !== null && hasControlChars(value)))
          throw invalid(`${at}.when.query`, `${at}.when.query keys must be non-empty, without control characters`);
      when.query = { ...rule.when.query };
    }
    if (rule.when.after !== undefined) when.after = rule.when.after;
    if (rule.when.before !== undefined) when.before = rule.when.before;
    if (when.after !== undefined && when.before !== undefined && when.after >= when.before)
      throw invalid(`${at}.when.before`, `${at}.when.before must be later than after`);
    const { destination, utm } = normalizeLinkDestination(rule.destination, slinkHosts, `${at}.destination`);
    const params = checkParams({ ...rule.params, ...utm }, `${at}.params`);
    return Object.keys(params).length > 0 ? { when, destination, params } : { when, destination };
  });
}

/** A preview as stored: the image an http(s) URL, no control characters anywhere. */
export function normalizePreview(preview: Preview | null): Preview | null {
  if (preview === null) return null;
  const title = preview.title.trim();
  if (title === '' || title.length > PREVIEW_LIMITS.title)
    throw invalid('preview.title', `preview.title must be 1 to ${PREVIEW_LIMITS.title} characters`);
  const out: Preview = { title };
  const description = preview.description?.trim() ?? '';
  if (description.length > PREVIEW_LIMITS.description)
    throw invalid(
      'preview.description',
      `preview.description must be at most ${PREVIEW_LIMITS.description} characters`,
    );
  if (description !== '') out.description = description;
  // Line breaks and tabs are fine in a description; nothing else below U+0020 is.
  for (const [name, text] of [
    ['title', title],
    ['description', description],
  ] as const)
    if (hasControlChars(text.replace(/[\n\r\t]/g, ' ')))
      throw invalid(`preview.${name}`, `preview.${name} contains control characters`);
  const image = preview.image?.trim() ?? '';
  if (image !== '') out.image = checkedImage(image);
  return out;
}

function checkedImage(image: string): string {
  const refused = () => invalid('preview.image', 'preview.image must be an absolute http(s) URL with a host');
  if (hasControlChars(image) || !/^https?:\/\//i.test(image)) throw refused();
  let url: URL;
  try {
    url = new URL(image);
  } catch {
    throw refused();
  }
  if (url.hostname === '' || url.username !== '' || url.password !== '') throw refused();
  if (url.href.length > PREVIEW_LIMITS.image)
    throw invalid('preview.image', `preview.image is longer than ${PREVIEW_LIMITS.image} characters once encoded`);
  return url.href;
}
