/** Reading query strings the way browsers and servers write them. */

/**
 * A query key or value as text: `+` is a space, then percent-decoding. A malformed escape
 * leaves the part as written: it is still compared, and kept, byte for byte.
 */
export function decodeQueryPart(raw: string): string {
  // Most parts hold neither `+` nor `%`: returned as they are, no copy, no try.
  const text = raw.includes('+') ? raw.replaceAll('+', ' ') : raw;
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return raw;
  }
}
