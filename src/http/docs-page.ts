/**
 * The /api/docs page: Swagger UI from the embedded assets, pointed at /api/openapi.json.
 * Rendered here rather than by the OpenAPI plugin so that its one inline script and one inline
 * style are known when the app starts: the page's CSP allows exactly those two by hash.
 */
import { escapeHtml } from '../lib/text';
import { htmlSecurityHeaders } from './html-headers';

interface DocsPageOptions {
  title: string;
  description: string;
  specUrl: string;
  scriptUrl: string;
  styleUrl: string;
}

// Swagger UI has no dark theme of its own: invert it when the system asks for dark.
const DARK_MODE_STYLE = `
@media (prefers-color-scheme: dark) {
  body { background-color: #222; }
  .swagger-ui { filter: invert(92%) hue-rotate(180deg); }
  .swagger-ui .microlight { filter: invert(100%) hue-rotate(180deg); }
}
`;

/** The page and its headers, built once. */
export function renderDocsPage(options: DocsPageOptions): { html: string; headers: Record<string, string> } {
  // JSON inside a <script>: "<" escaped so no value can close the element.
  const config = JSON.stringify({ dom_id: '#swagger-ui', url: options.specUrl }).replace(/</g, '\\u003c');
  const script = `window.onload = () => { window.ui = SwaggerUIBundle(${config}); };`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
<meta name="description" content="${escapeHtml(options.description)}">
<style>${DARK_MODE_STYLE}</style>
<link rel="stylesheet" href="${options.styleUrl}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${options.scriptUrl}"></script>
<script>${script}</script>
</body>
</html>
`;
  const headers = {
    'content-type': 'text/html; charset=utf-8',
    ...htmlSecurityHeaders({ scripts: [script], styles: [DARK_MODE_STYLE] }),
  };
  return { html, headers };
}
