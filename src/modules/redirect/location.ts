/**
 * The redirect target: the destination with the effective params applied (docs/behaviour.md,
 * "Redirects"). A key already in the destination query is replaced in place (later repeats of
 * it dropped), other query parts are kept byte for byte, new keys are appended in params order,
 * the fragment stays last. Computed when a link enters the slug index (the load, each write),
 * never per request.
 */

import { decodeQueryPart } from '../../lib/query';

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
