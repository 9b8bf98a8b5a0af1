/** Path rules of the router, free of the DOM (unit-tested on their own). */

/** The `:name` parts of `path` if it matches `pattern` exactly, else null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const have = path.split('/');
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const part = want[i]!;
    if (part.startsWith(':')) {
      try {
        params[part.slice(1)] = decodeURIComponent(have[i]!);
      } catch {
        return null;
      }
    } else if (part !== have[i]) return null;
  }
  return params;
}

/** A path to come back to after signing in: only the dashboard's own pages, never another site. */
export function safeReturnPath(next: string | null): string {
  return next && /^\/app(\/|$|\?)/.test(next) && !next.startsWith('//') ? next : '/app';
}

/** A link's page in the dashboard. */
export const linkPagePath = (id: string) => `/app/links/${encodeURIComponent(id)}`;
