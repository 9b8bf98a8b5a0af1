/** The address people share: {short_host}/<slug>, or {short_host}/<slug>/<code> for a variant. */
export function shortUrlOf(shortHost: string, slug: string, code?: string): string {
  return code === undefined ? `${shortHost}/${slug}` : `${shortHost}/${slug}/${code}`;
}
