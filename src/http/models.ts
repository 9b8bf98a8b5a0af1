/** Schemas shared by every module: the error body, params objects, paging. */
import { t } from 'elysia';
import { PARAM_LIMITS } from '../lib/params';
import { fieldError } from './errors';

export const ErrorModel = t.Object(
  {
    error: t.Object({
      code: t.String({ description: 'Stable, machine-readable code; branch on this.' }),
      message: t.String({ description: 'Human-readable explanation; may change.' }),
      field: t.Union([t.String(), t.Null()], { description: 'The offending input field, for invalid_request.' }),
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

/** Standard error responses, for OpenAPI. */
export function errors(...statuses: (400 | 401 | 403 | 404 | 409 | 413 | 415 | 429)[]) {
  return Object.fromEntries(statuses.map((s) => [s, ErrorModel]));
}

/**
 * The same error responses written as OpenAPI objects, for routes that answer a non-JSON body
 * (CSV, SVG) and so describe their responses in `detail` instead of `response`.
 */
export function errorResponses(...statuses: (400 | 401 | 403 | 404 | 409 | 429)[]) {
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
export function noContentResponses(description: string, ...statuses: (400 | 403 | 404 | 409 | 429)[]) {
  return { 204: { description }, ...errorResponses(...statuses) };
}
