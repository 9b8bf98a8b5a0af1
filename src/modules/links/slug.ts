/**
 * Slug rules (docs/behaviour.md, "Rules worth knowing"): 1 to 64 of [A-Za-z0-9_-],
 * case-sensitive; generated slugs are 7 random characters of [A-Za-z0-9]; reserved words (the
 * app's own paths) never become slugs.
 */
import { invalid } from '../../lib/errors';
import { randomString } from '../../lib/ids';

const SLUG_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const GENERATED_SLUG_LENGTH = 7;
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  'api',
  'app',
  'healthz',
  'metrics',
  'mcp',
  'tls',
  'favicon.ico',
  'robots.txt',
]);

function isReservedSlug(slug: string): boolean {
  return RESERVED_SLUGS.has(slug.toLowerCase());
}

export function checkCustomSlug(slug: string): string {
  if (!SLUG_PATTERN.test(slug)) {
    throw invalid('slug', 'Slug must be 1 to 64 characters of letters, digits, "-" and "_"');
  }
  if (isReservedSlug(slug)) throw invalid('slug', `"${slug}" is reserved`);
  return slug;
}

/** A fresh random slug; the caller retries on the (rare) collision with an existing one. */
export function generateSlug(): string {
  for (;;) {
    const slug = randomString(GENERATED_SLUG_LENGTH);
    if (!isReservedSlug(slug)) return slug;
  }
}
