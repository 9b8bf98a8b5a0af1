/** Schemas shared by every module: the error body, params objects, paging, path ids. */
import type { SchemaOptions, TLiteral, TSchema, TUnion } from '@sinclair/typebox';
import { t } from 'elysia';
import { invalid } from '../lib/errors';
import { PARAM_LIMITS } from '../lib/params';
import { fieldError } from './errors';

/**
 * `schema` or null. Not t.Nullable: it adds `nullable: true`, an OpenAPI 3.0 keyword that the
 * 3.1 document (where null is a type) does not use.
 */
export const nullable = <T extends TSchema>(schema: T, options?: SchemaOptions) => t.Union([schema, t.Null()], options);

/**
 * One of the given strings. A union of literals, not t.UnionEnum: UnionEnum carries a default
 * (its first value) that validation fills into an omitted query parameter (status=active would
 * hide paused links). With a description, a UnionEnum without that default instead: the
 * OpenAPI plugin turns a union of literals into an enum and drops its description, while a
 * UnionEnum's reaches the document; both validate the same values.
 */
export const oneOf = <const V extends readonly [string, ...string[]]>(values: V, options?: SchemaOptions) => {
  type OneOf = TUnion<{ -readonly [K in keyof V]: TLiteral<V[K]> }>;
  if (options?.description === undefined)
    return t.Union(
      values.map((value) => t.Literal(value)),
      options,
    ) as OneOf;
  const { default: _first, ...described } = t.UnionEnum([...values], options);
  return described as unknown as OneOf;
};

export const ErrorModel = t.Object(
  {
    error: t.Object({
      code: t.String({ description: 'Stable, machine-readable code; branch on this.' }),
      message: t.String({ description: 'Human-readable explanation; may change.' }),
      field: nullable(t.String(), { description: 'The offending input field, for invalid_request.' }),
    }),
  },
  { title: 'Error' },
);

/** Tracking parameters: string keys to string values (limits checked in the service). */
// Record keys admit every character: the default pattern '^(.*)$' does not match line breaks,
// and normalisation would silently drop such keys instead of letting the service reject them.
const ANY_KEY = t.String({ pattern: '^[\\s\\S]*$' });

/** A params object as stored and returned. */
export const StringMapModel = t.Record(ANY_KEY, t.String());

export const ParamsModel = t.Record(ANY_KEY, t.String({ maxLength: PARAM_LIMITS.valueLength }), {
  description: `Tracking parameters: at most ${PARAM_LIMITS.maxKeys} keys of 1 to ${PARAM_LIMITS.keyLength} characters, values up to ${PARAM_LIMITS.valueLength} characters.`,
  maxProperties: PARAM_LIMITS.maxKeys,
  error: fieldError(
    'params',
    `params must be an object of at most ${PARAM_LIMITS.maxKeys} string values of up to ${PARAM_LIMITS.valueLength} characters`,
  ),
});

export const DeletedModel = t.Object({ id: t.String(), deleted: t.Literal(true) });

/** The path of a link or a project. */
export const IdParams = t.Object({ id: t.String() });

/**
 * Query fields read as integers, with the message that names each. Elysia turns a query value
 * into a number with Number(), which also takes `0x10`, `1e3`, ` 256` and `1.0`; the app's
 * transform hook refuses anything but digits for these fields first (strictQueryIntegers).
 */
const INTEGER_QUERY_FIELDS = new Map<string, string>();

/** An integer query field from `minimum` to `maximum`, written as digits only. */
export function queryInteger(field: string, minimum: number, maximum: number, options: SchemaOptions = {}) {
  const message = `${field} must be an integer from ${minimum} to ${maximum}, written in digits`;
  INTEGER_QUERY_FIELDS.set(field, message);
  return t.Integer({ minimum, maximum, ...options, error: fieldError(field, message) });
}

/** Refuses a query integer written as anything but 1-15 digits (no sign, space, base or exponent). */
export function strictQueryIntegers(query: Record<string, unknown>): void {
  for (const [field, message] of INTEGER_QUERY_FIELDS) {
    const value = query[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) throw invalid(field, message);
  }
}

/** Paging: a page size from 1 to `maximum` (50 when omitted) and the cursor of the previous page. */
export const pageQuery = (maximum: number, limitOptions?: SchemaOptions) => ({
  limit: t.Optional(
    queryInteger('limit', 1, maximum, { ...limitOptions, description: `Page size, 1 to ${maximum} (default 50).` }),
  ),
  cursor: t.Optional(
    t.String({
      description: 'The cursor of the previous page.',
      error: fieldError('cursor', 'cursor must be a string'),
    }),
  ),
});

/** The cursor a page answers with. */
export const NextCursor = nullable(t.String(), {
  description: 'Pass as `cursor` for the next page; null on the last page.',
});

/** Standard error responses, for OpenAPI. */
export function errors(...statuses: (400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 503)[]) {
  return Object.fromEntries(statuses.map((s) => [s, ErrorModel]));
}

/**
 * The same error responses written as OpenAPI objects, for routes that answer a non-JSON body
 * (CSV, SVG) and so describe their responses in `detail` instead of `response`.
 */
export function errorResponses(...statuses: (400 | 401 | 403 | 404 | 409 | 429 | 503)[]) {
  return Object.fromEntries(
    statuses.map((s) => [s, { description: `Error (${s})`, content: { 'application/json': { schema: ErrorModel } } }]),
  );
}

/**
 * OpenAPI `detail` of a dashboard endpoint (/api/app): the App tag and the session cookie as its
 * security, or no security for the doors that open a session (setup, sign-in).
 */
export function appDetail(summary: string, description?: string, options: { door?: boolean } = {}) {
  return { tags: ['App'], summary, description, security: options.door ? [] : [{ session: [] }] };
}

/**
 * Responses of an operation that answers 204 with no body. Written as OpenAPI objects in `detail`
 * because the plugin renders a `t.Void()` response as invalid OpenAPI; such routes declare no
 * `response` (the plugin would replace these with it).
 */
export function noContentResponses(description: string, ...statuses: (400 | 401 | 403 | 404 | 409 | 429 | 503)[]) {
  return { 204: { description }, ...errorResponses(...statuses) };
}
