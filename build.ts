/**
 * Compiles dist/slink: one executable with Bun, the code, the migrations, the docs assets and
 * the dashboard (built first by scripts/build-dashboard.ts when its sources changed) inside.
 * Never minified: identifier minification makes Elysia skip numeric validation (`?n=50`
 * against a maximum of 10 passes as the string "50").
 * The DB-IP geo database (two .mmdb files, 134 MB) is copied beside it rather than embedded,
 * which would double both the binary and its memory; dist/slink finds the files in its own folder.
 */
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildDashboard } from './scripts/build-dashboard';
import { DEFAULT_GEO_FILES } from './src/modules/clicks/enrich/geo';

const root = import.meta.dir;
const outfile = join(root, 'dist', 'slink');
rmSync(outfile, { force: true });

const started = performance.now();
console.log((await buildDashboard({ ifStale: true })).join('\n'));
const result = await Bun.build({
  // The click writer, the export and the password checks run in Workers: their entries are bundled in too.
  entrypoints: [
    join(root, 'src', 'index.ts'),
    join(root, 'src', 'modules', 'clicks', 'capture', 'writer-worker.ts'),
    join(root, 'src', 'modules', 'analytics', 'export-worker.ts'),
    join(root, 'src', 'modules', 'sessions', 'verify-worker.ts'),
  ],
  compile: { outfile },
  target: 'bun',
  // Bytecode: the binary skips parsing its bundle at start (bytecode needs ESM).
  format: 'esm',
  bytecode: true,
  minify: false,
  sourcemap: 'none',
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
const geoDir = join(root, 'node_modules', '@ip-location-db', 'dbip-city-mmdb');
for (const name of [...DEFAULT_GEO_FILES, 'DBIP-LICENSE']) copyFileSync(join(geoDir, name), join(root, 'dist', name));
const size = Bun.file(outfile).size;
console.log(
  `built ${outfile} (${(size / 1024 / 1024).toFixed(1)} MB) in ${Math.round(performance.now() - started)} ms`,
);
console.log(`geo database beside it: ${DEFAULT_GEO_FILES.join(', ')} (DB-IP, CC BY 4.0; see dist/DBIP-LICENSE)`);
