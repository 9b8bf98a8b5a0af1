/**
 * The redirect target: the destination with the effective params applied (docs/behaviour.md,
 * "Redirects"). A key already in the destination query is replaced in place (later repeats of
 * it dropped), other query parts are kept byte for byte, new keys are appended in params order,
 * the fragment stays last. Computed when a link enters the slug index (the load, each write),
 * never per request.
 */

import { decodeQueryPart, readQueryParts } from '../../lib/query';

// Anything outside printable ASCII must never reach the Location header. Per code point (u):
// the halves of a surrogate pair cannot be percent-encoded one at a time.
const UNSAFE = /[^\x21-\x7e]/gu;

export function applyParams(destination: string, params: Readonly<Record<string, string>>): string {
  const hashAt = destination.indexOf('#');
  const fragment = hashAt < 0 ? '' : destination.slice(hashAt);
  const beforeHash = hashAt < 0 ? destination : destination.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  const base = queryAt < 0 ? beforeHash : beforeHash.slice(0, queryAt);
  const query = queryAt < 0 ? '' : beforeHash.slice(queryAt + 1);

  const encode = (key: string) => `${encodeURIComponent(key)}=${encodeURIComponent(params[key]!)}`;
  const placed = new Set<string>();
  const parts: string[] = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = decodeQueryPart(eq < 0 ? part : part.slice(0, eq));
    if (!Object.hasOwn(params, key)) parts.push(part);
    else if (!placed.has(key)) {
      parts.push(encode(key));
      placed.add(key);
    }
  }
  for (const key of Object.keys(params)) if (!placed.has(key)) parts.push(encode(key));
  const url = `${base}${parts.length ? `?${parts.join('&')}` : ''}${fragment}`;
  return url.replace(UNSAFE, (c) => encodeURIComponent(c));
}

/**
 * A link's Location with the visitor's query added (forwardQuery): each visitor part whose key
 * the Location's query does not hold yet is appended, as sent (only characters outside printable
 * ASCII encoded), so the destination's keys and the effective params (tracking) are never
 * overridden. `rawQuery` is the request URL's query without its `?`; only what QUERY_READ_LIMITS
 * reads of it is forwarded. Per request, but only for links that ask for it and visitors that
 * send a query.
 */
export function withVisitorQuery(location: string, rawQuery: string): string {
  const hashAt = location.indexOf('#');
  const fragment = hashAt < 0 ? '' : location.slice(hashAt);
  const beforeHash = hashAt < 0 ? location : location.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  const taken = new Set<string>();
  if (queryAt >= 0) for (const part of beforeHash.slice(queryAt + 1).split('&')) taken.add(keyOf(part));
  const added: string[] = [];
  for (const part of readQueryParts(rawQuery)) {
    if (part === '') continue;
    const key = keyOf(part);
    if (taken.has(key)) continue;
    // A key the visitor repeats is forwarded with all its values; the link's own keys never are.
    added.push(part.replace(UNSAFE, (c) => encodeURIComponent(c)));
  }
  if (added.length === 0) return location;
  const joiner = queryAt < 0 ? '?' : beforeHash.endsWith('?') || beforeHash.endsWith('&') ? '' : '&';
  return `${beforeHash}${joiner}${added.join('&')}${fragment}`;
}

function keyOf(part: string): string {
  const eq = part.indexOf('=');
  return decodeQueryPart(eq < 0 ? part : part.slice(0, eq));
}
