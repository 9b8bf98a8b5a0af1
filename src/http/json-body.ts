/**
 * The API's JSON bodies, read before Elysia parses and validates them. A body is at most
 * MAX_BODY_BYTES however it was sent (a chunked body has no Content-Length for the guard to
 * check) and nests at most MAX_JSON_DEPTH arrays and objects. Without the depth limit, a 120 KB
 * body nested 20,000 deep cost seconds of event loop and gigabytes of memory in validation (the
 * error rendered the whole value), and deeper ones overflowed the stack (a 500); Slink's deepest
 * body (bulk links with params) nests 4.
 */
import { AppError } from '../lib/errors';

export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_JSON_DEPTH = 16;
/** A JSON media type (`application/json`, `application/problem+json`, with or without parameters). */
export const JSON_TYPE = /^application\/([\w.+-]+\+)?json\b/i;

export function tooLarge(): AppError {
  return new AppError('payload_too_large', `Request body is larger than ${MAX_BODY_BYTES} bytes`);
}

/** The deepest nesting of arrays and objects in JSON text, stopping as soon as it passes `limit`. */
function depthOver(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character, a quote included
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Reads and parses a JSON request body; throws the API's errors (413, 400 naming `body`). */
export async function readJsonBody(request: Request): Promise<unknown> {
  const bytes = await request.arrayBuffer();
  if (bytes.byteLength > MAX_BODY_BYTES) throw tooLarge();
  const text = new TextDecoder().decode(bytes);
  if (depthOver(text, MAX_JSON_DEPTH)) {
    throw new AppError(
      'invalid_request',
      `Request body nests arrays and objects deeper than ${MAX_JSON_DEPTH}`,
      'body',
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('invalid_request', 'Request body is not valid JSON', 'body');
  }
}
