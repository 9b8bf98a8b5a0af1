/** Reading query strings the way browsers and servers write them. */
import { isUtf8 } from 'node:buffer';

const utf8 = new TextDecoder();

/** The value of a hex digit's char code, or -1 (NaN, past the end, included). */
function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/**
 * A query key or value as text: `+` is a space, then percent-decoding. A malformed escape
 * (`%zz`, or escapes that are not UTF-8) leaves the part as written: it is still compared, and
 * kept, byte for byte. The same answer as decodeURIComponent without its exception: a throw
 * costs about a microsecond, and a hostile query holds thousands of bad escapes.
 */
export function decodeQueryPart(raw: string): string {
  // Most parts hold neither `+` nor `%`: returned as they are, no copy.
  const text = raw.includes('+') ? raw.replaceAll('+', ' ') : raw;
  let at = text.indexOf('%');
  if (at < 0) return text;
  let out = '';
  let last = 0;
  const bytes: number[] = [];
  while (at >= 0) {
    out += text.slice(last, at);
    // A run of escapes is one byte sequence: a character's UTF-8 bytes are always adjacent.
    bytes.length = 0;
    while (at < text.length && text.charCodeAt(at) === 37) {
      const high = hexValue(text.charCodeAt(at + 1));
      const low = hexValue(text.charCodeAt(at + 2));
      if (high < 0 || low < 0) return raw;
      bytes.push(high * 16 + low);
      at += 3;
    }
    const run = Uint8Array.from(bytes);
    if (!isUtf8(run)) return raw;
    out += utf8.decode(run);
    last = at;
    at = text.indexOf('%', last);
  }
  return out + text.slice(last);
}

/**
 * How much of a visitor's query the redirect reads (link rules' `query`, forwardQuery): the
 * first `parts` parameters within the first `chars` characters. Enough for any real link, and it
 * bounds the work a hostile query costs per request.
 */
export const QUERY_READ_LIMITS = { chars: 8192, parts: 100 } as const;

/** The parameters of a raw query (without its `?`) the redirect reads: see QUERY_READ_LIMITS. */
export function readQueryParts(rawQuery: string): string[] {
  let text = rawQuery;
  if (text.length > QUERY_READ_LIMITS.chars) {
    // A parameter cut by the limit is left out whole, never read half.
    const cut = text.lastIndexOf('&', QUERY_READ_LIMITS.chars);
    text = cut < 0 ? '' : text.slice(0, cut);
  }
  return text.split('&', QUERY_READ_LIMITS.parts);
}
