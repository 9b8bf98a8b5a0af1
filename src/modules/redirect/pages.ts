/**
 * The short host's own pages: small, styled, self-contained HTML (no external assets) for
 * links that cannot redirect. Built once; nothing user-supplied is ever written into them.
 */
import { htmlSecurityHeaders } from '../../http/html-headers';
import { PREVIEW_CRAWLERS } from '../clicks/public';

// The pages' one inline stylesheet, allowed by its hash (the short host serves no other files).
const STYLE = `
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
body{margin:0;min-height:100vh;display:grid;place-items:center;background:#f6f7f9;color:#1f2328}
main{max-width:28rem;padding:2.5rem 2rem;text-align:center}
.code{font-size:4rem;font-weight:700;letter-spacing:-.04em;color:#8c959f;margin:0}
h1{font-size:1.4rem;margin:.5rem 0}p{line-height:1.5;color:#57606a}
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}p{color:#9198a1}.code{color:#3d444d}}
`;

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'private, max-age=0',
  'x-robots-tag': 'noindex',
  ...htmlSecurityHeaders({ styles: [STYLE] }),
};

function page(status: number, title: string, message: string): { status: number; html: string } {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${status} · ${title}</title>
<style>${STYLE}</style></head>
<body><main><p class="code">${status}</p><h1>${title}</h1><p>${message}</p></main></body></html>
`;
  return { status, html };
}

const PAGES = {
  notFound: page(404, 'Link not found', 'This short link does not exist or is not active.'),
  gone: page(410, 'Link no longer available', 'This short link has expired or reached its click limit.'),
  methodNotAllowed: page(405, 'Method not allowed', 'Short links answer GET and HEAD requests only.'),
};

type PageName = keyof typeof PAGES;

export function pageResponse(name: PageName): Response {
  const { status, html } = PAGES[name];
  const headers: Record<string, string> = { ...PAGE_HEADERS };
  if (name === 'methodNotAllowed') headers.allow = 'GET, HEAD';
  return new Response(html, { status, headers });
}

/**
 * Short links are for people: ask crawlers not to index them. The social-preview crawlers are
 * let in (X's Twitterbot, for one, draws no card for an address robots.txt disallows), so a
 * shared short link gets a card: its preview page, or the destination's own through the redirect.
 */
export const ROBOTS_TXT = `${PREVIEW_CRAWLERS.map(({ name }) => `User-agent: ${name}\n`).join('')}Allow: /\n\nUser-agent: *\nDisallow: /\n`;
