/**
 * Typed domain errors. Services throw these with a documented code (docs/behaviour.md,
 * "Errors") and, for bad input, the field at fault; they know nothing of HTTP.
 * src/http/errors.ts maps codes to statuses.
 */

export type ErrorCode =
  | 'key_missing'
  | 'key_unknown'
  | 'key_revoked'
  | 'key_expired'
  | 'insufficient_scope'
  | 'superuser_required'
  | 'invalid_request'
  | 'not_found'
  | 'conflict'
  | 'delete_requires_dashboard'
  | 'session_required'
  | 'csrf_rejected'
  | 'sign_in_failed'
  | 'setup_token_invalid'
  | 'setup_done'
  | 'rate_limited'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'storage_unavailable'
  | 'internal_error';

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field: string | null = null,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/** Too many attempts: `retryAfter` seconds until one may succeed (the HTTP edge sends it as Retry-After). */
export class RateLimitedError extends AppError {
  constructor(
    message: string,
    readonly retryAfter: number,
  ) {
    super('rate_limited', message);
  }
}

export const invalid = (field: string, message: string) => new AppError('invalid_request', message, field);
export const notFound = (what: string) => new AppError('not_found', `No such ${what}`);
export const conflict = (field: string, message: string) => new AppError('conflict', message, field);
