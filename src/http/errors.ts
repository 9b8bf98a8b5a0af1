/**
 * The one place errors become responses: {error:{code,message,field}} with the documented
 * status (docs/behaviour.md, "Errors"). Unknown errors are logged and answered with a generic
 * 500 that leaks nothing.
 */
import { AppError, type ErrorCode } from '../lib/errors';

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  key_missing: 401,
  key_unknown: 401,
  key_revoked: 401,
  key_expired: 401,
  insufficient_scope: 403,
  superuser_required: 403,
  invalid_request: 400,
  not_found: 404,
  conflict: 409,
  delete_requires_dashboard: 409,
  session_required: 403,
  csrf_rejected: 403,
  sign_in_failed: 401,
  password_wrong: 401,
  setup_token_invalid: 403,
  setup_done: 409,
  rate_limited: 429,
  payload_too_large: 413,
  unsupported_media_type: 415,
  storage_unavailable: 503,
  verification_unavailable: 503,
  internal_error: 500,
};

interface ErrorBody {
  error: { code: ErrorCode; message: string; field: string | null };
}

export function errorBody(code: ErrorCode, message: string, field: string | null = null): ErrorBody {
  return { error: { code, message, field } };
}

export function errorResponse(err: AppError, headers?: Record<string, string>): Response {
  return Response.json(errorBody(err.code, err.message, err.field), {
    status: STATUS_BY_CODE[err.code],
    headers,
  });
}

interface ValidationLike {
  type: string;
  customError?: unknown;
  valueError?: ValueErrorLike;
  all?: ValueErrorLike[];
}
interface ValueErrorLike {
  path?: string;
  message?: string;
  summary?: string;
  schema?: { error?: unknown };
  /** A union's: the errors of each of its members (TypeBox ValueErrorIterator). */
  errors?: Iterable<ValueErrorLike>[];
}

type CustomError = { field?: string; message?: string } | undefined;

/**
 * Inside a union that failed (a nullable object such as `preview`), the first error of a member
 * that lies deeper than the union and names its own field (`preview.title`): a client is told
 * which property is wrong, not only that the whole value is. Null when there is none.
 */
function namedInnerError(union: ValueErrorLike): { error: ValueErrorLike; custom: CustomError } | null {
  const depth = union.path?.length ?? 0;
  for (const member of union.errors ?? [])
    for (const inner of member) {
      const own = inner.schema?.error;
      const custom = (typeof own === 'function' ? own() : own) as CustomError;
      if ((inner.path?.length ?? 0) > depth && custom?.field !== undefined) return { error: inner, custom };
    }
  return null;
}

/** Elysia's VALIDATION error -> invalid_request naming the top-level input field. */
export function validationToAppError(error: ValidationLike): AppError {
  const failed = error.valueError ?? error.all?.[0];
  const inner = failed === undefined ? null : namedInnerError(failed);
  const first = inner?.error ?? failed;
  const custom = inner?.custom ?? ((error.customError ?? first?.schema?.error) as CustomError);
  const path = (first?.path ?? '').replace(/^\//, '');
  const field = custom?.field ?? (path.split('/')[0] || (error.type === 'body' ? 'body' : null));
  const detail = path.includes('/') ? ` (at ${path.replace(/\//g, '.')})` : '';
  const message =
    custom?.message ??
    (field === 'body'
      ? 'Request body is missing or not a JSON object'
      : `Invalid ${field}: ${first?.summary ?? first?.message ?? 'bad value'}${detail}`);
  return new AppError('invalid_request', message, field);
}

/**
 * A schema's `error` option that keeps the field name: Elysia drops the property path of some
 * errors (numeric query coercion), so schemas name their field themselves.
 * @example t.Integer({ error: fieldError('limit', 'limit must be 1 to 100') })
 */
export function fieldError(field: string, message: string) {
  return () => ({ field, message });
}
