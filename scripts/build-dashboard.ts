/**
 * Builds the dashboard's browser code: src/modules/dashboard/client/ bundled and minified by
 * Bun.build into hashed files under src/modules/dashboard/generated/, plus the module
 * assets.gen.ts that imports each of them as text, so the server (and dist/slink) carries them.
 * Both are generated, never committed: `bun install` (postinstall), `bun run start`,
 * `bun run slink` and `bun test` (all three through scripts/dashboard/ensure-built.ts) and
 * `bun run build` run this first, and it rebuilds only when the inputs' fingerprint changed, so
 * the served bundle is never stale.
 *
 * Usage: bun run scripts/build-dashboard.ts [--if-stale]
 *   --if-stale  do nothing when the generated files match the sources
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { inputsFingerprint, recordedFingerprint } from './dashboard/fingerprint';
import { type BuiltAsset, genModuleText, JS_TEXT_DECLARATION } from './dashboard/gen-module';

const root = join(import.meta.dir, '..');
const moduleDir = join(root, 'src', 'modules', 'dashboard');
const clientDir = join(moduleDir, 'client');
const OUT_DIR_NAME = 'generated';
const outDir = join(moduleDir, OUT_DIR_NAME);
const genModule = join(moduleDir, 'assets.gen.ts');
const INPUTS = ['src/modules/dashboard/client', 'scripts/build-dashboard.ts', 'scripts/dashboard', 'bun.lock'];

/** The budget for all of the dashboard's JavaScript, gzipped. */
export const JS_BUDGET_GZIP = 150 * 1024;

/**
 * Assets drawn by code at build time rather than bundled: the world map, `world-map.svg`; the
 * client finds its hashed URL with `assetUrl('world-map.svg')` (client/lib/assets.ts). Imported
 * here, not at the top: d3-geo and the atlas load only when the dashboard is really rebuilt,
 * never on the up-to-date check every start and test run does.
 */
async function codeDrawnAssets(): Promise<{ logical: string; text: string }[]> {
  const { buildWorldMapSvg } = await import('./dashboard/world-map');
  return [{ logical: 'world-map.svg', text: buildWorldMapSvg() }];
}

/** `<name>-<hash>.<ext>`, like Bun.build's naming, for files that are not bundled. */
function hashedName(logical: string, text: string): string {
  const ext = extname(logical);
  return `${basename(logical, ext)}-${Bun.hash(text).toString(36).slice(0, 8)}${ext}`;
}

async function bundle(): Promise<BuiltAsset[]> {
  const result = await Bun.build({
    entrypoints: [join(clientDir, 'main.tsx'), join(clientDir, 'styles', 'app.css')],
    target: 'browser',
    minify: true,
    naming: '[name]-[hash].[ext]',
    // Code only some pages need (the chart library) goes into chunks loaded by import().
    splitting: true,
    sourcemap: 'none',
  });
  if (!result.success) throw new AggregateError(result.logs, 'the dashboard client did not build');
  const assets: BuiltAsset[] = [];
  for (const output of result.outputs) {
    const name = basename(output.path);
    const chunk = output.kind === 'chunk';
    // Chunks all have the source name "chunk": each keeps its own, hashed name.
    const logical = chunk ? name : name.replace(/-[a-z0-9]+(\.\w+)$/, '$1');
    assets.push({ logical, name, text: await output.text(), chunk });
  }
  const icon = await Bun.file(join(clientDir, 'icon.svg')).text();
  for (const extra of [{ logical: 'icon.svg', text: icon }, ...(await codeDrawnAssets())]) {
    assets.push({ ...extra, name: hashedName(extra.logical, extra.text) });
  }
  return assets;
}

function write(assets: BuiltAsset[], fingerprint: string): void {
  mkdirSync(outDir, { recursive: true });
  const keep = new Set<string>();
  for (const asset of assets) {
    writeFileSync(join(outDir, asset.name), asset.text);
    keep.add(asset.name);
    if (asset.name.endsWith('.js')) {
      const declaration = asset.name.replace(/\.js$/, '.d.ts');
      writeFileSync(join(outDir, declaration), JS_TEXT_DECLARATION);
      keep.add(declaration);
    }
  }
  const find = (logical: string) => {
    const asset = assets.find((a) => a.logical === logical);
    if (!asset) throw new Error(`the dashboard build has no ${logical}`);
    return asset.name;
  };
  const entry = { script: find('main.js'), style: find('app.css'), icon: find('icon.svg') };
  // The module last and in one rename: a reader never sees it name files not yet written.
  writeFileSync(`${genModule}.tmp`, genModuleText(fingerprint, assets, entry, OUT_DIR_NAME));
  renameSync(`${genModule}.tmp`, genModule);
  for (const file of readdirSync(outDir)) if (!keep.has(file)) rmSync(join(outDir, file));
}

function report(assets: BuiltAsset[]): string[] {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const lines = assets.map((a) => {
    const gzip = Bun.gzipSync(a.text).length;
    return `  ${a.name.padEnd(28)} ${kb(a.text.length).padStart(9)}  ${kb(gzip).padStart(8)} gzipped`;
  });
  const jsGzip = assets.filter((a) => a.name.endsWith('.js')).reduce((n, a) => n + Bun.gzipSync(a.text).length, 0);
  lines.push(`  JavaScript in total: ${kb(jsGzip)} gzipped (budget ${kb(JS_BUDGET_GZIP)})`);
  if (jsGzip > JS_BUDGET_GZIP) throw new Error(`dashboard JavaScript is ${kb(jsGzip)} gzipped, over the budget`);
  return lines;
}

/** The fingerprint of the current sources (what a fresh assets.gen.ts records). */
export const sourcesFingerprint = () => inputsFingerprint(root, INPUTS);

function isFresh(fingerprint: string): boolean {
  return existsSync(outDir) && recordedFingerprint(genModule) === fingerprint;
}

/** Builds the dashboard (or, with ifStale, only when its inputs changed); returns the report lines. */
export async function buildDashboard(options: { ifStale?: boolean } = {}): Promise<string[]> {
  const fingerprint = sourcesFingerprint();
  if (options.ifStale && isFresh(fingerprint)) return ['dashboard assets are up to date'];
  const assets = await bundle();
  const lines = report(assets);
  write(assets, fingerprint);
  return [`built the dashboard into ${outDir}:`, ...lines];
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  try {
    const lines = await buildDashboard({ ifStale: args.includes('--if-stale') });
    console.log(lines.join('\n'));
  } catch (err) {
    console.error(`build-dashboard: ${err instanceof Error ? err.message : String(err)}`);
    if (err instanceof AggregateError) for (const log of err.errors) console.error(String(log));
    process.exit(1);
  }
}
