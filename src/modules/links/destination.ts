/**
 * Destination rules (docs/behaviour.md, "Rules worth knowing"): an absolute http(s) URL with a host, at most
 * 2048 characters, no user:password, no control characters; IDN hosts become punycode. The
 * server also refuses Slink's own hosts (own-host.ts, which needs the configuration; the
 * dashboard runs this function too, to lift utm_ keys as the person types).
 * utm_ query keys are lifted out into params; every other query part is kept byte for byte,
 * so functional parameters reach the destination exactly as the user wrote them.
 */
import { invalid } from '../../lib/errors';
import { decodeQueryPart } from '../../lib/query';
import { hasControlChars } from '../../lib/text';

export const MAX_DESTINATION_LENGTH = 2048;

interface NormalizedDestination {
  destination: string;
  /** utm_* keys lifted out of the query, in order; a later repeat of a key wins, even an empty one. */
  utm: Record<string, string>;
}

export function normalizeDestination(raw: string, field = 'destination'): NormalizedDestination {
  // Checked before trimming: trim() would quietly remove a trailing newline or tab.
  if (hasControlChars(raw)) throw invalid(field, 'Destination contains control characters');
  const input = raw.trim();
  if (input === '') throw invalid(field, 'Destination is required');
  if (input.length > MAX_DESTINATION_LENGTH) {
    throw invalid(field, `Destination is longer than ${MAX_DESTINATION_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw invalid(field, 'Destination must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid(field, `Destination must use http or https, not ${url.protocol.replace(':', '')}`);
  }
  // "http:/example.com" and "http:example.com" parse with a host; insist on the real "//" form.
  if (!/^https?:\/\//i.test(input) || url.hostname === '') throw invalid(field, 'Destination must have a host');
  if (url.username !== '' || url.password !== '') {
    throw invalid(field, 'Destination must not contain a user name or password');
  }

  const utm: Record<string, string> = {};
  if (url.search.length > 1) {
    const kept: string[] = [];
    for (const part of url.search.slice(1).split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      const key = decodeQueryPart(eq < 0 ? part : part.slice(0, eq));
      if (key.startsWith('utm_')) utm[key] = eq < 0 ? '' : decodeQueryPart(part.slice(eq + 1));
      else kept.push(part);
    }
    url.search = kept.length ? `?${kept.join('&')}` : '';
  }
  const destination = url.href;
  if (destination.length > MAX_DESTINATION_LENGTH) {
    throw invalid(field, `Destination is longer than ${MAX_DESTINATION_LENGTH} characters once encoded`);
  }
  return { destination, utm };
}
