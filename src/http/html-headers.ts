/**
 * The security headers of every HTML page Slink serves (the dashboard shell, the API docs, the
 * short host's 404/410 pages), kept in one place so no page can drift from the others.
 * The policy loads nothing from another origin and runs no inline code: a page that needs an
 * inline script or style names exactly those, by hash, never with 'unsafe-inline'.
 */

const BASE_POLICY: [directive: string, sources: string[]][] = [
  ['default-src', ["'self'"]],
  ['script-src', ["'self'"]],
  ['style-src', ["'self'"]],
  ['img-src', ["'self'", 'data:']],
  ['connect-src', ["'self'"]],
  ['font-src', ["'self'"]],
  ['object-src', ["'none'"]],
  ['base-uri', ["'none'"]],
  ['form-action', ["'self'"]],
  ['frame-ancestors', ["'none'"]],
];

/** The CSP source that allows one inline <script> or <style> whose text is exactly `text`. */
function cspHash(text: string): string {
  return `'sha256-${new Bun.CryptoHasher('sha256').update(text).digest('base64')}'`;
}

interface InlineCode {
  /** Texts of inline <script> elements the page carries. */
  scripts?: string[];
  /** Texts of inline <style> elements the page carries. */
  styles?: string[];
  /**
   * Where the page's forms may lead besides 'self'. Browsers apply form-action to the redirects
   * that follow a submission too: a form answered by a redirect elsewhere names that elsewhere.
   */
  formTargets?: string[];
}

/** CSP, nosniff and Referrer-Policy for an HTML page; pass the page's inline code, if any. */
export function htmlSecurityHeaders(inline: InlineCode = {}): Record<string, string> {
  const extra: Record<string, string[]> = {
    'script-src': (inline.scripts ?? []).map(cspHash),
    'style-src': (inline.styles ?? []).map(cspHash),
    'form-action': inline.formTargets ?? [],
  };
  const policy = BASE_POLICY.map(([directive, sources]) =>
    [directive, ...sources, ...(extra[directive] ?? [])].join(' '),
  ).join('; ');
  return {
    'content-security-policy': policy,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
  };
}
