/**
 * The API's JSON bodies, read before Elysia parses and validates them. A body is at most
 * MAX_BODY_BYTES however it was sent (a chunked body has no Content-Length for the guard to
 * check) and nests at most MAX_JSON_DEPTH arrays and objects. Without the depth limit, a 120 KB
 * body nested 20,000 deep cost seconds of event loop and gigabytes of memory in validation (the
 * error rendered the whole value), and deeper ones overflowed the stack (a 500); Slink's deepest
 * body (bulk links with params) nests 4. The count of values is bounded likewise, the bytes
 * must be UTF-8, and its strings text (no unpaired surrogate escapes).
 */
import { AppError } from '../lib/errors';

export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * The largest file an import's multipart upload may carry (a CSV, a Slink export): a larger one
 * is imported with `slink import --file`, which streams it.
 */
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;
/**
 * The whole form carrying such a file: the file, its part's headers, the boundaries and the
 * import's other fields (a few short texts). The file itself is bounded by MAX_UPLOAD_BYTES.
 */
export const MAX_UPLOAD_FORM_BYTES = MAX_UPLOAD_BYTES + 64 * 1024;
/** The paths that take a multipart upload (POST): an import's file. */
export const UPLOAD_PATHS: ReadonlySet<string> = new Set(['/api/v1/imports', '/api/app/imports']);
export const MAX_JSON_DEPTH = 16;
/**
 * Values (array items and object members) a body may hold in all. Slink's largest real body, a
 * bulk params change, holds at most 200 ids and 50 params; validating an object of 50,000 keys
 * cost 40-60 ms of event loop (measured), so anything this far beyond any real body is refused
 * unread.
 */
export const MAX_JSON_VALUES = 5_000;
/** A JSON media type (`application/json`, `application/problem+json`, with or without parameters). */
export const JSON_TYPE = /^application\/([\w.+-]+\+)?json\b/i;

/** Whether the request carries a body: a Content-Length above 0, or a chunked one (no Content-Length). */
export function hasBody(request: Request): boolean {
  const length = request.headers.get('content-length');
  return length === null ? request.body !== null : Number(length) > 0;
}

export function tooLarge(): AppError {
  return new AppError('payload_too_large', `Request body is larger than ${MAX_BODY_BYTES} bytes`);
}

/**
 * What is wrong with the shape of JSON text, found in one pass outside strings before anything
 * parses it: nesting deeper than MAX_JSON_DEPTH, or more than MAX_JSON_VALUES values (counted by
 * their separators: a comma or an opening bracket each starts one). Null when neither.
 */
function shapeProblem(text: string): string | null {
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character, a quote included
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return `Request body nests arrays and objects deeper than ${MAX_JSON_DEPTH}`;
      if (++values > MAX_JSON_VALUES) return `Request body holds more than ${MAX_JSON_VALUES} values`;
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c && ++values > MAX_JSON_VALUES) return `Request body holds more than ${MAX_JSON_VALUES} values`;
  }
  return null;
}

/**
 * JSON text is UTF-8 (RFC 8259). The default decoder replaces bytes that are not with U+FFFD, so a
 * title or param sent as Latin-1 was stored silently changed; this one throws instead.
 */
const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: ArrayBuffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new AppError('invalid_request', 'Request body is not valid UTF-8', 'body');
  }
}

// A `\uD800`-`\uDFFF` escape: the only way a surrogate reaches a string (UTF-8 bytes cannot encode one).
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Objects whose keys are data (a link's `params`, a rule's or a rules test's `query`), not fields. */
const RECORDS = new Set(['params', 'query']);

/**
 * The field (`title`, `preview.title`, `rules[0].when.country`, `params`) of the first string,
 * or object key, holding a surrogate without its pair, or null. Named as validation names fields:
 * a list of strings by the list, a record (RECORDS) by itself. Such a string is no text: stored,
 * it became U+FFFD on one engine and stayed raw on another, and no page or CSV can show it.
 */
function loneSurrogateAt(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.isWellFormed() ? null : path || 'body';
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const at = typeof item === 'string' ? loneSurrogateAt(item, path) : loneSurrogateAt(item, `${path}[${i}]`);
      if (at !== null) return at;
    }
    return null;
  }
  for (const [key, member] of Object.entries(value)) {
    if (!key.isWellFormed()) return path || 'body';
    const field = path === '' ? key : `${path}.${key}`;
    const at = loneSurrogateAt(member, field);
    if (at !== null) return RECORDS.has(key) ? field : at;
  }
  return null;
}

/** Reads and parses a JSON request body; throws the API's errors (413, 400 naming `body` or the field). */
export async function readJsonBody(request: Request): Promise<unknown> {
  const bytes = await request.arrayBuffer();
  if (bytes.byteLength > MAX_BODY_BYTES) throw tooLarge();
  const text = decodeUtf8(bytes);
  const problem = shapeProblem(text);
  if (problem !== null) throw new AppError('invalid_request', problem, 'body');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError('invalid_request', 'Request body is not valid JSON', 'body');
  }
  // Every string of every body, in one place; walked only when the text has such an escape.
  const lone = SURROGATE_ESCAPE.test(text) ? loneSurrogateAt(body, '') : null;
  if (lone !== null)
    throw new AppError('invalid_request', `${lone} holds an unpaired surrogate (\\uD800-\\uDFFF): not text`, lone);
  return body;
}
