/**
 * The social-preview page (docs/behaviour.md, "Social previews"): what a listed preview crawler
 * gets from a link with a `preview`, instead of the redirect. Open Graph and Twitter card tags
 * built from the preview, and a plain link to where a visitor would be sent.
 *
 * Every value is the link owner's text, so each is escaped for where it stands (element text or
 * a double-quoted attribute: the same five characters). No script, no style, no meta refresh:
 * crawlers read tags and follow no refresh, and people never get this page.
 */
import { htmlSecurityHeaders } from '../../http/html-headers';
import { escapeHtml } from '../../lib/text';
import type { Preview } from '../links/public';

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  // As the redirect: never stored by a shared cache, whose key would not hold the user agent.
  'cache-control': 'private, max-age=0',
  vary: 'User-Agent',
  ...htmlSecurityHeaders(),
};

function meta(attribute: 'name' | 'property', key: string, value: string | undefined): string {
  return value === undefined ? '' : `<meta ${attribute}="${key}" content="${escapeHtml(value)}">\n`;
}

/**
 * The page for `preview` shared as `shortUrl` (the address the crawler fetched, without its
 * query), linking to `location` (where the redirect would send a visitor).
 */
export function previewHtml(preview: Preview, shortUrl: string, location: string): string {
  const { title, description, image } = preview;
  const text = escapeHtml(title);
  return `<!doctype html>
<html><head><meta charset="utf-8">
<title>${text}</title>
${meta('name', 'description', description)}<meta property="og:type" content="website">
${meta('property', 'og:url', shortUrl)}${meta('property', 'og:title', title)}${meta('property', 'og:description', description)}${meta('property', 'og:image', image)}<meta name="twitter:card" content="${image === undefined ? 'summary' : 'summary_large_image'}">
${meta('name', 'twitter:title', title)}${meta('name', 'twitter:description', description)}${meta('name', 'twitter:image', image)}</head>
<body><h1>${text}</h1>
${description === undefined ? '' : `<p>${escapeHtml(description)}</p>\n`}<p><a href="${escapeHtml(location)}">${escapeHtml(location)}</a></p>
</body></html>
`;
}

/** The 200 answer: the page, or for HEAD the same headers and no body. */
export function previewResponse(preview: Preview, shortUrl: string, location: string, head: boolean): Response {
  const html = previewHtml(preview, shortUrl, location);
  if (!head) return new Response(html, { headers: HEADERS });
  return new Response(null, { headers: { ...HEADERS, 'content-length': String(Buffer.byteLength(html)) } });
}
