/**
 * A destination as people write it: "acme.example/pricing" means https://acme.example/pricing.
 * Only text that starts with a host name (a dotted name or localhost, an optional port, then
 * the end or a path) is completed; anything else ("mailto:", "ftp://", words) is left for the
 * API to refuse in its own words. DOM-free (unit-tested on its own).
 */

const LABEL = '[^\\s/?#:@.]+';
const HOST_FIRST = new RegExp(`^(?:localhost|(?:${LABEL}\\.)+${LABEL})(?::\\d+)?(?:[/?#]|$)`, 'i');

/** The text with "https://" in front when it names a host but no scheme; otherwise as it was. */
export function withScheme(text: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith('//')) return `https:${trimmed}`;
  return HOST_FIRST.test(trimmed) ? `https://${trimmed}` : text;
}

/**
 * Bulk text with each line's URL completed the same way; what follows a tab on the line (the
 * title) is left as it is.
 */
export function withSchemes(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const tab = line.indexOf('\t');
      const url = tab < 0 ? line : line.slice(0, tab);
      const completed = withScheme(url);
      return completed === url ? line : `${completed}${tab < 0 ? '' : line.slice(tab)}`;
    })
    .join('\n');
}
