/**
 * The one gate for user-supplied URLs put into an href (destinations, referrers): only http(s)
 * passes. Preact escapes text but not a `javascript:` or `data:` URL in an attribute.
 */
export function safeHref(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}
