/**
 * Writes the dashboard's world map to a file for inspection and prints its size, raw and
 * gzipped (what a browser downloads):
 *   bun run scripts/dashboard/world-map-cli.ts [out.svg]   (default: dist/world-map.svg)
 * To look at it: rsvg-convert -w 1200 dist/world-map.svg -o map.png. Unstyled, every country
 * is black (SVG's default fill): the dashboard's CSS gives `.country` its colours.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildWorldMapSvg } from './world-map';

const out = process.argv[2] ?? join(import.meta.dir, '..', '..', 'dist', 'world-map.svg');
const svg = buildWorldMapSvg();
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, svg);
const bytes = Buffer.byteLength(svg);
const countries = svg.match(/ data-code="/g)?.length ?? 0;
console.log(
  `wrote ${out}: ${countries} countries, ${bytes} bytes (${(bytes / 1024).toFixed(1)} KB), ` +
    `${gzipSync(svg, { level: 9 }).length} bytes gzipped`,
);
