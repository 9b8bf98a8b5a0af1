/**
 * The dashboard session at the HTTP edge: the cookie that carries its token, and the
 * same-origin rule that keeps other sites from using it (CSRF).
 */

const NAME = 'slink_session';

function isHttps(appHost: string): boolean {
  return appHost.startsWith('https:');
}

/** `__Host-` on https: the browser then only accepts it Secure, host-only, Path=/ (no cookie tossing from subdomains). */
export function sessionCookieName(appHost: string): string {
  return isHttps(appHost) ? `__Host-${NAME}` : NAME;
}

function cookie(appHost: string, value: string, maxAge: number): string {
  const secure = isHttps(appHost) ? '; Secure' : '';
  return `${sessionCookieName(appHost)}=${value}; Max-Age=${maxAge}; Path=/; HttpOnly; SameSite=Lax${secure}`;
}

/** Set-Cookie for a new session; it lives as long as the session's absolute expiry. */
export function sessionCookie(appHost: string, token: string, expiresAt: number, now: number): string {
  return cookie(appHost, token, Math.max(0, Math.floor((expiresAt - now) / 1000)));
}

export function clearedSessionCookie(appHost: string): string {
  return cookie(appHost, '', 0);
}

/** The session token the request carries, if any (the first cookie of the name). */
export function readSessionToken(request: Request, appHost: string): string | null {
  const header = request.headers.get('cookie');
  if (!header) return null;
  const prefix = `${sessionCookieName(appHost)}=`;
  for (const part of header.split(';')) {
    const pair = part.trim();
    if (pair.startsWith(prefix)) return pair.slice(prefix.length) || null;
  }
  return null;
}

export function isWrite(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
}

/**
 * True when the browser says the request comes from the dashboard's own pages: Sec-Fetch-Site
 * same-origin, or Origin equal to the app host. A session-authenticated write must show this.
 */
export function isSameOrigin(request: Request, appHost: string): boolean {
  return request.headers.get('sec-fetch-site') === 'same-origin' || request.headers.get('origin') === appHost;
}

/**
 * True when a browser marked the request as coming from another site. Sign-in and setup carry no
 * session yet, so they cannot demand proof of origin (scripts and tests send none), but a request
 * a browser marks cross-origin is refused: another site must not sign a visitor in to its account.
 */
export function isMarkedCrossOrigin(request: Request, appHost: string): boolean {
  if (isSameOrigin(request, appHost)) return false;
  const site = request.headers.get('sec-fetch-site');
  return (site !== null && site !== 'none') || request.headers.has('origin');
}
