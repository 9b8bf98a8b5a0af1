/**
 * The dashboard's HTML shell: the same small page for every /app path (the client renders the
 * page for the address). It names only hashed, same-origin assets and runs no inline code; the
 * asset map is a JSON data block, which browsers never execute.
 */
import { htmlSecurityHeaders } from '../../http/html-headers';

const ASSETS_PATH = '/app/assets';

interface ShellAssets {
  script: string;
  style: string;
  icon: string;
  /** Served name by source name, for assets the client loads itself (the world map). */
  names: Record<string, string>;
}

export function renderShell(assets: ShellAssets): string {
  const map = JSON.stringify(
    Object.fromEntries(Object.entries(assets.names).map(([logical, name]) => [logical, `${ASSETS_PATH}/${name}`])),
  ).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<title>Slink</title>
<link rel="icon" href="${ASSETS_PATH}/${assets.icon}" type="image/svg+xml">
<link rel="stylesheet" href="${ASSETS_PATH}/${assets.style}">
<script type="module" src="${ASSETS_PATH}/${assets.script}"></script>
<script type="application/json" id="slink-assets">${map}</script>
</head>
<body>
<div id="app"></div>
<noscript><p>The Slink dashboard needs JavaScript. The API works without it: see /api/docs.</p></noscript>
</body>
</html>
`;
}

export const SHELL_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  // The shell names the current bundle: never reuse an old copy of it.
  'cache-control': 'no-store',
  ...htmlSecurityHeaders(),
};
