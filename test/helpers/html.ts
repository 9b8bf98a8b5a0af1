/**
 * Checks the security headers every HTML page carries: the one CSP (plus, for a page with
 * inline code, exactly the hashes of that code and nothing looser), nosniff and Referrer-Policy.
 */
import { expect } from 'bun:test';

export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const sha256 = (text: string) => `'sha256-${new Bun.CryptoHasher('sha256').update(text).digest('base64')}'`;

/** Texts of the page's executable inline scripts and inline styles (JSON data blocks excluded). */
export function inlineCode(html: string): { scripts: string[]; styles: string[] } {
  const scripts = [...html.matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/gi)]
    .filter((m) => !/\bsrc\s*=/.test(m[1] ?? '') && !/type\s*=\s*"application\/json"/.test(m[1] ?? ''))
    .map((m) => m[2]!);
  const styles = [...html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/gi)].map((m) => m[1]!);
  return { scripts, styles };
}

/**
 * The CSP a page must carry: the dashboard's, with the hashes of its own inline code added, and
 * `formTargets` where its forms may lead besides 'self' (a form answered by a redirect elsewhere).
 */
export function expectedCsp(html: string, formTargets: string[] = []): string {
  const { scripts, styles } = inlineCode(html);
  return DASHBOARD_CSP.replace("script-src 'self'", ["script-src 'self'", ...scripts.map(sha256)].join(' '))
    .replace("style-src 'self'", ["style-src 'self'", ...styles.map(sha256)].join(' '))
    .replace("form-action 'self'", ["form-action 'self'", ...formTargets].join(' '));
}

export function expectHtmlSecurityHeaders(headers: Headers, html: string, formTargets: string[] = []): void {
  expect(headers.get('content-type')).toBe('text/html; charset=utf-8');
  const csp = headers.get('content-security-policy');
  expect(csp).toBe(expectedCsp(html, formTargets));
  expect(csp).not.toContain('unsafe-');
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('same-origin');
}
