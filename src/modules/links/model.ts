/** Link schemas: the single source for validation, TypeScript types and OpenAPI. */
import { type SchemaOptions, type TLiteral, type TUnion, Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { fieldError } from '../../http/errors';
import { NextCursor, nullable, oneOf, ParamsModel, pageQuery, StringMapModel } from '../../http/models';
import { MAX_INSTANT } from '../../lib/time';
import { projectIdField } from '../projects/public';
import { VariantModel } from '../variants/public';
import { AVAILABILITIES } from './availability';
import { PasswordField, PreviewModel, RulesField } from './rules';
import { LINK_STATUSES } from './table';

export const LINK_LIMITS = { titleLength: 500, tags: 50, tagLength: 64 } as const;

/** The statuses a link's redirects may answer with; 302 unless the link says otherwise. */
export const REDIRECT_STATUSES = [301, 302, 307, 308] as const;
export type RedirectStatus = (typeof REDIRECT_STATUSES)[number];
export const DEFAULT_REDIRECT_STATUS: RedirectStatus = 302;
/**
 * A UnionEnum without the default it carries (its first value, which validation would fill into
 * an omitted field: see oneOf), so that its description reaches the OpenAPI document.
 */
const redirectStatusOf = (options: SchemaOptions) => {
  const { default: _first, ...schema } = t.UnionEnum([...REDIRECT_STATUSES], options);
  return schema as unknown as TUnion<[TLiteral<301>, TLiteral<302>, TLiteral<307>, TLiteral<308>]>;
};

const FALLBACK_MEANING =
  'Absolute http(s) URL, same rules as destination (utm_ keys stay in it), or null. Where an expired link (expiresAt passed) or one whose clickCount reached clickLimit sends visitors instead of the 410 page: a 302 with Cache-Control no-store, no click recorded. A paused link still answers 404.';
const REDIRECT_STATUS_MEANING =
  "The status of this link's redirects, its variants' too: 301, 302 (default), 307 or 308. Browsers cache a 301 or 308: later clicks from that browser may go straight to the destination without reaching Slink, and are then not counted.";
const FORWARD_QUERY_MEANING =
  "Default false. True: the visitor's query parameters (of /<slug>?… or /<slug>/<code>?…) are added to the Location; a key the destination or the effective params already set keeps their value. False: the visitor's query is ignored.";

/** A link's status, as a field of a body or query (bulk status uses it too). */
export const StatusModel = oneOf(LINK_STATUSES, {
  error: fieldError('status', `status must be one of ${LINK_STATUSES.join(', ')}`),
});

const AVAILABILITY_MEANING =
  'live: the short link redirects now; paused: status paused, visitors get the 404 page; expired: expiresAt has passed; limit: clickCount has reached clickLimit. An expired or limit link answers a 302 to its fallbackUrl when it has one, else the 410 page; either way it records no click and no longer reaches its destination. When several hold, the first of paused, expired, limit (the order the redirect checks them in); an archived link redirects, so it is live unless another holds. Clicks count once written, like clickCount (within SLINK_FLUSH_MS plus a second).';

/** Where part of a link's history came from (an import: imports/history). */
export const IMPORTED_HISTORIES = ['visits', 'daily', 'total', 'none'] as const;
export const ImportedModel = t.Object(
  {
    source: t.String({ description: 'The import source: shlink, bitly, kutt, yourls, dub, csv or slink.' }),
    at: Type.Integer({ description: 'When the first import brought the link or its history, epoch ms.' }),
    history: oneOf(IMPORTED_HISTORIES, {
      description:
        "What the source kept: visits (each visit, now clicks of the clicks list), daily (daily counts: counted in clickCount, the series and totals, with no uniques, breakdowns or rows of the clicks list; an hourly series shows a day's count at its first hour), total (the starting clickCount), none (no history).",
    }),
    clicks: Type.Integer({ description: 'The clicks the import brought (human and bot).' }),
  },
  { title: 'ImportedHistory' },
);
export type ImportedHistory = typeof ImportedModel.static;

export const LinkModel = t.Object(
  {
    id: t.String(),
    slug: t.String(),
    shortUrl: t.String({
      description: "The bare short link: its domain's origin, `/`, the slug; tracking parameters never appear in it.",
    }),
    domain: t.String({
      description: 'The host of the short domain the link lives on (lowercase, punycode); its slug is unique there.',
    }),
    destination: t.String({ description: 'Destination URL, utm_ keys removed.' }),
    title: nullable(t.String()),
    tags: t.Array(t.String()),
    status: StatusModel,
    availability: oneOf(AVAILABILITIES, {
      description: `Read-only: what a visitor of the short link gets now. ${AVAILABILITY_MEANING}`,
    }),
    params: StringMapModel,
    variants: t.Array(VariantModel),
    projectId: nullable(t.String()),
    projectName: nullable(t.String()),
    clickCount: Type.Integer({ description: 'Human clicks only.' }),
    uniqueCount: Type.Integer(),
    botCount: Type.Integer(),
    expiresAt: nullable(Type.Integer()),
    clickLimit: nullable(Type.Integer()),
    fallbackUrl: nullable(t.String(), { description: FALLBACK_MEANING }),
    redirectStatus: redirectStatusOf({ description: REDIRECT_STATUS_MEANING }),
    forwardQuery: t.Boolean({ description: FORWARD_QUERY_MEANING }),
    passwordProtected: t.Boolean({
      description:
        'Read-only: whether the short link asks for a password (set with the write-only password field): its GET answers a password form (200 HTML) instead of the redirect, unless the visitor has the unlock cookie or sends the X-Slink-Password header.',
    }),
    rules: RulesField,
    preview: nullable(PreviewModel, {
      description:
        'What social-preview crawlers (Slackbot, Twitterbot, facebookexternalhit, LinkedInBot, Discordbot, WhatsApp, TelegramBot, Mastodon and the like) get instead of the redirect: a 200 page with Open Graph and Twitter card tags (og:url the short link fetched, twitter:card summary_large_image with an image, summary without) and a plain link to the destination, counted as a bot hit. The password wins: while the link has a password, its crawlers get the password form like everyone (the card would tell what the password guards); the preview is kept and shown again once the password is removed. null: they get the redirect.',
    }),
    lastClickedAt: nullable(Type.Integer()),
    fallbackCount: Type.Integer({
      description:
        'Read-only: human visits answered with fallbackUrl (the link expired or past its clickLimit), counted apart from clickCount, which they never add to; bots, crawlers and HEAD requests are not counted. Written like clickCount (within SLINK_FLUSH_MS plus a second), exact across nodes.',
    }),
    imported: nullable(ImportedModel, {
      description:
        "Read-only: part of the link's history was imported (slink import, POST /imports): from where, when, and how much. null: none was.",
    }),
    createdAt: Type.Integer(),
    updatedAt: Type.Integer(),
  },
  { title: 'Link' },
);
export type Link = typeof LinkModel.static;

const Title = t.String({
  maxLength: LINK_LIMITS.titleLength,
  error: fieldError('title', `title must be a string of at most ${LINK_LIMITS.titleLength} characters`),
});
/** The tags sent for a link, for every link of a bulk create, or added to or removed from a selection (`field`). */
export const tagsField = (
  description = `At most ${LINK_LIMITS.tags} tags of 1 to ${LINK_LIMITS.tagLength} characters; trimmed, repeats dropped.`,
  field = 'tags',
) =>
  t.Array(t.String({ maxLength: LINK_LIMITS.tagLength }), {
    maxItems: LINK_LIMITS.tags,
    description,
    error: fieldError(
      field,
      `${field} must be an array of at most ${LINK_LIMITS.tags} strings of 1 to ${LINK_LIMITS.tagLength} characters`,
    ),
  });
const ExpiresAt = nullable(Type.Integer({ minimum: 0, maximum: MAX_INSTANT }), {
  description:
    'Epoch ms, at most the end of the year 9999; after it the short link answers a 302 to fallbackUrl when set, else the 410 page.',
  error: fieldError('expiresAt', 'expiresAt must be epoch milliseconds up to the year 9999, or null'),
});
// Safe integers only: a larger number is stored as a float and no count ever equals it.
const ClickLimit = nullable(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), {
  description: `Human clicks allowed, 1 to ${Number.MAX_SAFE_INTEGER}; once clickCount reaches it the short link answers a 302 to fallbackUrl when set, else the 410 page.`,
  error: fieldError('clickLimit', `clickLimit must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}, or null`),
});
const Destination = t.String({
  description: 'Absolute http(s) URL, at most 2048 characters. utm_ query keys are moved into params.',
  error: fieldError('destination', 'destination must be a string'),
});
const FallbackUrl = nullable(t.String(), {
  description: FALLBACK_MEANING,
  error: fieldError('fallbackUrl', 'fallbackUrl must be an absolute http(s) URL or null'),
});
const RedirectStatusField = redirectStatusOf({
  description: REDIRECT_STATUS_MEANING,
  error: fieldError('redirectStatus', `redirectStatus must be one of ${REDIRECT_STATUSES.join(', ')}`),
});
const ForwardQuery = t.Boolean({
  description: FORWARD_QUERY_MEANING,
  error: fieldError('forwardQuery', 'forwardQuery must be true or false'),
});
const Slug = t.String({
  description: '1 to 64 letters, digits, "-" or "_"; case-sensitive. Requires a superuser key.',
  error: fieldError('slug', 'slug must be a string'),
});

const HOST_MEANING =
  "The host of one of the workspace's short domains (GET /domains), matched without regard to case, as punycode, any port ignored; an unknown host is 400 (field domain).";
/** A domain named by its host in a body: the link's (create, PATCH) or every created link's (bulk). */
export const domainField = (description: string) =>
  t.String({
    maxLength: 300,
    description: `${HOST_MEANING} ${description}`,
    error: fieldError('domain', "domain must be the host of one of the workspace's short domains"),
  });

const NullableTitle = nullable(Title, {
  error: fieldError('title', `title must be a string of at most ${LINK_LIMITS.titleLength} characters or null`),
});

/** Every field but the destination is optional on create; PATCH takes any subset plus status. */
const optionalLinkFields = {
  slug: t.Optional(Slug),
  domain: t.Optional(domainField('Default: the default domain.')),
  title: t.Optional(NullableTitle),
  tags: t.Optional(tagsField()),
  params: t.Optional(ParamsModel),
  projectId: t.Optional(projectIdField()),
  expiresAt: t.Optional(ExpiresAt),
  clickLimit: t.Optional(ClickLimit),
  fallbackUrl: t.Optional(FallbackUrl),
  redirectStatus: t.Optional(RedirectStatusField),
  forwardQuery: t.Optional(ForwardQuery),
  password: t.Optional(PasswordField),
  rules: t.Optional(RulesField),
  preview: t.Optional(
    nullable(PreviewModel, {
      description:
        'What social-preview crawlers get instead of the redirect (see Link.preview); kept but not shown while the link has a password (the password wins); null removes it.',
      error: fieldError('preview', 'preview must be {title, description?, image?} or null'),
    }),
  ),
};

export const CreateLinkBody = t.Object({ destination: Destination, ...optionalLinkFields });
export type CreateLinkInput = typeof CreateLinkBody.static;

export const UpdateLinkBody = t.Object({
  destination: t.Optional(Destination),
  ...optionalLinkFields,
  domain: t.Optional(
    domainField(
      'Moves the link there: it keeps its id, clicks and statistics, its short URL changes, and the old address stops answering at once. Like a slug rename it changes the public address, so it requires a superuser key (403 superuser_required); 409 conflict (field slug) when its slug is taken on that domain.',
    ),
  ),
  status: t.Optional(StatusModel),
});
export type UpdateLinkInput = typeof UpdateLinkBody.static;

const LINK_SORTS = ['created', 'oldest', 'clicks', 'updated'] as const;
export type LinkSort = (typeof LINK_SORTS)[number];

/** The filters of the list, also those of the count (GET /links/count). */
const linkFilterFields = {
  q: t.Optional(
    t.String({
      maxLength: 200,
      description: 'Matches slug, title or destination (substring, case-insensitive).',
      error: fieldError('q', 'q must be at most 200 characters'),
    }),
  ),
  tag: t.Optional(t.String({ error: fieldError('tag', 'tag must be a string') })),
  domain: t.Optional(
    t.String({
      maxLength: 300,
      description: `Only the links on this short domain. ${HOST_MEANING}`,
      error: fieldError('domain', "domain must be the host of one of the workspace's short domains"),
    }),
  ),
  project: t.Optional(
    t.String({
      description: 'A project id, or `none` for unfiled links.',
      error: fieldError('project', 'project must be a project id or none'),
    }),
  ),
  status: t.Optional(StatusModel),
  availability: t.Optional(
    oneOf(AVAILABILITIES, {
      description: `Only links of this availability (see Link.availability), as of the request; combines with status, whose default (active and paused) still applies. ${AVAILABILITY_MEANING}`,
      error: fieldError('availability', `availability must be one of ${AVAILABILITIES.join(', ')}`),
    }),
  ),
};

export const LinkFilterQuery = t.Object(linkFilterFields);
export type LinkFilterInput = typeof LinkFilterQuery.static;

export const ListLinksQuery = t.Object({
  ...linkFilterFields,
  sort: t.Optional(
    t.UnionEnum([...LINK_SORTS], {
      description:
        'created: newest first (default); oldest: oldest first; clicks: most clicks first; updated: most recently updated first. Ties broken by id.',
      error: fieldError('sort', 'sort must be one of created, oldest, clicks, updated'),
    }),
  ),
  ...pageQuery(100, { default: 50 }),
});
export type ListLinksInput = typeof ListLinksQuery.static;

export const LinkListModel = t.Object({
  items: t.Array(LinkModel),
  cursor: NextCursor,
});

export const LinkCountModel = t.Object({
  count: Type.Integer({ minimum: 0, description: 'Links matching the filters (every page of the list together).' }),
});

export const TagCountsModel = t.Object({
  tags: t.Array(
    t.Object({ tag: t.String(), count: Type.Integer({ description: 'Links carrying the tag (archived included).' }) }),
  ),
});
