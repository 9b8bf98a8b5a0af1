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
  | 'password_wrong'
  | 'setup_token_invalid'
  | 'setup_done'
  | 'rate_limited'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'storage_unavailable'
  | 'verification_unavailable'
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

/**
 * A password could not be checked now (no verification slot freed in time, or the checking thread
 * stopped or was lost): nothing was decided; `retryAfter` seconds until it is worth asking again.
 */
export class VerificationUnavailableError extends AppError {
  constructor(
    message: string,
    readonly retryAfter: number,
  ) {
    super('verification_unavailable', message);
  }
}

export const invalid = (field: string, message: string) => new AppError('invalid_request', message, field);
export const notFound = (what: string) => new AppError('not_found', `No such ${what}`);
export const conflict = (field: string, message: string) => new AppError('conflict', message, field);

const MAX_DESCRIPTION = 300;

/**
 * An unexpected error as one log line: its name, its codes (SQLite's or the system's `code`,
 * PostgreSQL's SQLSTATE in `errno`), its message, and where it was thrown (the top frame of its
 * stack). A request never writes a stack trace to the log: one a client can cause at will would
 * fill the disk and bury everything else.
 */
export function describeError(error: unknown): string {
  const text =
    error instanceof Error
      ? `${[error.name, ...codesOf(error)].join(' ')}: ${error.message}${topFrame(error)}`
      : `non-error thrown: ${String(error)}`;
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_DESCRIPTION ? `${line.slice(0, MAX_DESCRIPTION)}…` : line;
}

function codesOf(error: Error): string[] {
  const { code, errno } = error as { code?: unknown; errno?: unknown };
  // Bun's system errors already start their message with the code ("EISDIR: illegal operation ...").
  return [code, errno].filter((c): c is string => typeof c === 'string' && c !== '' && !error.message.includes(c));
}

function topFrame(error: Error): string {
  let stack = error.stack ?? '';
  // The stack starts with the message, which may hold lines of its own.
  const header = `${error.name}: ${error.message}`;
  if (stack.startsWith(header)) stack = stack.slice(header.length);
  const frames = stack.split('\n').filter((l) => l.trimStart().startsWith('at '));
  // A native or runtime frame ("at readFileSync (unknown)", "at #run (bun:sqlite:195:25)") says
  // little: the first one in a file of ours (an absolute path) says where.
  const frame = frames.find((l) => /[( ]\/[^()]*:\d+:\d+\)?$/.test(l)) ?? frames[0];
  return frame ? ` (${frame.trim()})` : '';
}
