/**
 * Compiles dist/slink: one executable with Bun, the code, the migrations and the docs assets
 * inside. Never minified: identifier minification makes Elysia skip numeric validation
 * (STACK-NOTES).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';

const root = import.meta.dir;
const outfile = join(root, 'dist', 'slink');
rmSync(outfile, { force: true });

const started = performance.now();
const result = await Bun.build({
  entrypoints: [join(root, 'src', 'index.ts')],
  compile: { outfile },
  target: 'bun',
  minify: false,
  sourcemap: 'none',
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
const size = Bun.file(outfile).size;
console.log(`built ${outfile} (${(size / 1024 / 1024).toFixed(1)} MB) in ${Math.round(performance.now() - started)} ms`);
