/**
 * Words reserved after links could already have them as slugs (docs/behaviour.md, "Short
 * domains"): such a link keeps answering on every short domain that is not the app host
 * (index.ts), and the start names it in one warning (link-index.ts, the load).
 */
export const LATE_RESERVED_SLUGS: ReadonlySet<string> = new Set(['mcp', 'tls']);

/** Whether a slug is one of LATE_RESERVED_SLUGS, whatever its case; allocates only for 3 characters. */
export function isLateReserved(slug: string): boolean {
  return slug.length === 3 && LATE_RESERVED_SLUGS.has(slug.toLowerCase());
}

/** A link whose slug became a reserved word. */
export interface ReservedSlugLink {
  id: string;
  slug: string;
  domainId: number;
}

/** The start's one warning naming the links whose slug became a reserved word, with their domains' hosts. */
export function reservedSlugsWarning(links: readonly ReservedSlugLink[], hostOf: (domainId: number) => string): string {
  const named = links.map((l) => `${hostOf(l.domainId)}/${l.slug} (${l.id})`).join(', ');
  return `warning: ${links.length === 1 ? 'a link has' : `${links.length} links have`} a slug that is now a reserved word: ${named}; it keeps answering on every short domain that is not the app host, but on the app host the path is the app's`;
}
