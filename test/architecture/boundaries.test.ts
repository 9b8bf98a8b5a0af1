/**
 * A module's tables are read and written only by that module: no file under src/modules
 * imports another module's table.ts (a table.ts may, to declare a foreign key) or db/schema,
 * or names another module's table in SQL. The CLI owns no table: it calls services.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT, scanSource, sourceFiles, tableOwners } from './scan';

const owners = tableOwners();

describe('module boundaries', () => {
  test('every table has an owner (the scan below is not vacuous)', () => {
    expect(owners.get('links')).toBe('links');
    expect(owners.get('link_tags')).toBe('links');
    expect(owners.get('variants')).toBe('variants');
    expect(owners.get('projects')).toBe('projects');
    expect(owners.get('clicks')).toBe('clicks');
    expect(owners.get('rollups')).toBe('rollups');
    expect(owners.get('rollup_values')).toBe('rollups');
    expect(owners.get('rollup_marks')).toBe('rollups');
    expect(owners.get('click_state')).toBe('clicks');
    expect(owners.get('api_keys')).toBe('auth');
  });

  test('no module imports another module’s tables or names them in SQL', () => {
    const files = sourceFiles(['src/modules', 'src/cli']);
    expect(files.length).toBeGreaterThan(50);
    const violations = files.flatMap((file) => scanSource(file, readFileSync(join(ROOT, file), 'utf8'), owners));
    expect(violations).toEqual([]);
  });
});

describe('module dependencies', () => {
  test('the rollups never import the clicks module: clicks depends on rollups, not the other way', () => {
    const files = sourceFiles(['src/modules/rollups']);
    expect(files.length).toBeGreaterThan(5);
    const imports = files.flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map(
        (m) => `${file} imports ${m[1]}`,
      ),
    );
    expect(imports.length).toBeGreaterThan(10);
    expect(imports.filter((line) => /\/clicks(\/|$)/.test(line.split(' imports ')[1]!))).toEqual([]);
  });
});

/** Every folder under src/modules is a module: one added later is covered without touching this test. */
const MODULES = readdirSync(join(ROOT, 'src/modules'))
  .filter((name) => statSync(join(ROOT, 'src/modules', name)).isDirectory())
  .sort();

/** The composition root, which mounts each module's routes (its index.ts). */
const ROUTE_MOUNTERS = new Set(['src/app.ts', 'src/server.ts']);

/**
 * The dashboard's browser client is bundled apart (its own tsconfig) and imports no server
 * code: it reads other modules' schemas for their types and dependency-free files (the rollups'
 * dimensions), so it is not an importer these checks look at.
 */
const CLIENT = 'src/modules/dashboard/client/';

/**
 * Whether `importer` may import `target`, a file of `module`: its face (public.ts); its table.ts
 * (drizzle's schema and foreign keys); rollups' dimensions.ts (dependency-free); its routes
 * (index.ts) from the composition root that mounts them.
 */
function faceAllows(module: string, target: string, importer: string): boolean {
  const inner = target.slice(`src/modules/${module}/`.length);
  if (inner === 'public.ts' || inner === 'table.ts') return true;
  if (module === 'rollups' && inner === 'dimensions.ts') return true;
  return inner === 'index.ts' && ROUTE_MOUNTERS.has(importer);
}

/** The src-relative file a relative import names (a folder names its index.ts). */
function importedFile(importer: string, specifier: string): string {
  const target = relative(ROOT, resolve(dirname(join(ROOT, importer)), specifier));
  if (/\.(ts|tsx)$/.test(target)) return target;
  const absolute = join(ROOT, target);
  return existsSync(absolute) && statSync(absolute).isDirectory() ? `${target}/index.ts` : `${target}.ts`;
}

/** The module a src-relative file belongs to, or null outside src/modules. */
function moduleOfFile(file: string): string | null {
  return file.startsWith('src/modules/') ? file.split('/')[2]! : null;
}

/** The relative imports (and re-exports) of a file: the src-relative files they name. */
function importsOf(file: string, text: string): string[] {
  return [...text.matchAll(/\b(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)].map((m) => importedFile(file, m[1]!));
}

/** The imports in `text` (of `file`) that reach inside another module instead of through its face. */
function reachingInside(file: string, text: string): string[] {
  const own = moduleOfFile(file);
  return importsOf(file, text).flatMap((target) => {
    const module = moduleOfFile(target);
    if (module === null || module === own || faceAllows(module, target, file)) return [];
    return [`${file} imports ${target}`];
  });
}

/** Every file under src/ the face checks read: all but the dashboard's browser client. */
const importers = () => sourceFiles(['src']).filter((file) => !file.startsWith(CLIENT));

describe('one face per module', () => {
  test('the modules are found, and each has its public.ts', () => {
    expect(MODULES).toContain('links');
    expect(MODULES).toContain('clicks');
    expect(MODULES.length).toBeGreaterThan(10);
    expect(MODULES.filter((module) => !existsSync(join(ROOT, 'src/modules', module, 'public.ts')))).toEqual([]);
  });

  test('outside a module’s folder, only its public.ts (its table.ts; its index.ts from app.ts) is imported', () => {
    const files = importers();
    expect(files.length).toBeGreaterThan(300);
    const found = files.flatMap((file) => reachingInside(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(found).toEqual([]);
    // Not vacuous: other modules do import through the faces.
    const throughFaces = new Set(
      files.flatMap((file) =>
        importsOf(file, readFileSync(join(ROOT, file), 'utf8'))
          .filter((target) => target.endsWith('/public.ts') && moduleOfFile(target) !== moduleOfFile(file))
          .map((target) => moduleOfFile(target)),
      ),
    );
    expect(throughFaces.size).toBeGreaterThan(8);
  });

  test('the check sees an import that reaches inside, and lets the allowed ones through', () => {
    const file = 'src/modules/analytics/clicks.ts';
    expect(reachingInside(file, "import { x } from '../clicks/sqlite/raw-read';")).toEqual([
      `${file} imports src/modules/clicks/sqlite/raw-read.ts`,
    ]);
    expect(reachingInside(file, "import { x } from '../links';")).toEqual([
      `${file} imports src/modules/links/index.ts`,
    ]);
    expect(reachingInside('src/cli/user.ts', "export { y } from '../modules/auth/keys';")).toEqual([
      'src/cli/user.ts imports src/modules/auth/keys.ts',
    ]);
    const allowed = [
      "import { x } from '../clicks/public';",
      "import { links } from '../links/table';",
      "import { CLICK_DIMS } from '../rollups/dimensions';",
      "import type { Own } from './model';",
    ].join('\n');
    expect(reachingInside(file, allowed)).toEqual([]);
    expect(reachingInside('src/app.ts', "import { linksRoutes } from './modules/links';")).toEqual([]);
  });
});

describe('the module graph', () => {
  /** module -> the modules its files import (tables apart: a table.ts may name another's for a foreign key). */
  function moduleGraph(): Map<string, Set<string>> {
    const graph = new Map<string, Set<string>>(MODULES.map((module) => [module, new Set<string>()]));
    for (const file of importers()) {
      const own = moduleOfFile(file);
      if (own === null) continue;
      for (const target of importsOf(file, readFileSync(join(ROOT, file), 'utf8'))) {
        const module = moduleOfFile(target);
        if (module !== null && module !== own && !target.endsWith('/table.ts')) graph.get(own)!.add(module);
      }
    }
    return graph;
  }

  /** The loops of modules importing each other (each as a path back to its start). */
  function loops(graph: Map<string, Set<string>>): string[] {
    const found: string[] = [];
    const done = new Set<string>();
    const visit = (module: string, path: string[]) => {
      if (path.includes(module)) {
        found.push([...path.slice(path.indexOf(module)), module].join(' -> '));
        return;
      }
      if (done.has(module)) return;
      for (const next of graph.get(module) ?? []) visit(next, [...path, module]);
      done.add(module);
    };
    for (const module of graph.keys()) visit(module, []);
    return found;
  }

  test('goes one way: no module reaches back to itself through others (faces would make that a file cycle)', () => {
    const graph = moduleGraph();
    expect([...graph.values()].reduce((n, targets) => n + targets.size, 0)).toBeGreaterThan(15);
    expect(loops(graph)).toEqual([]);
  });

  test('the loop check sees a loop', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
    ]);
    expect(loops(graph)).toEqual(['a -> b -> c -> a']);
  });
});

describe('the scanner', () => {
  const scan = (file: string, text: string) => scanSource(file, text, owners);

  test('reports imports of another module’s table.ts or of db/schema, with their line', () => {
    const text =
      "import { x } from './model';\nimport { links } from '../links/table';\nimport * as s from '../../db/schema';\n";
    expect(scan('src/modules/bulk/repo.ts', text)).toEqual([
      'src/modules/bulk/repo.ts:2 imports ../links/table (tables of links)',
      "src/modules/bulk/repo.ts:3 imports ../../db/schema: every module's tables at once",
    ]);
  });

  test('allows a module’s own tables, and another’s from a table.ts (foreign keys)', () => {
    expect(
      scan('src/modules/links/repo.ts', "import { links } from './table';\nconst q = 'SELECT 1 FROM links';"),
    ).toEqual([]);
    expect(scan('src/modules/variants/table.ts', "import { links } from '../links/table';")).toEqual([]);
  });

  test('reports SQL naming another module’s table in strings and templates, not in comments', () => {
    const text = [
      '// SELECT id FROM links: a comment is not SQL',
      "const a = 'select id from links where id = ?';",
      'const b = `SELECT count(*)',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the fixture is source text holding a template.
      '  FROM clicks c JOIN ${t} ON 1',
      '  LEFT JOIN "variants" v ON 1`;',
      "const c = 'INSERT OR IGNORE INTO visitor_salts VALUES (1)';",
      "const d = 'rows from the link list'; // English, no table",
    ].join('\n');
    expect(scan('src/cli/user.ts', text).map((v) => v.split(' ')[0])).toEqual([
      'src/cli/user.ts:2',
      'src/cli/user.ts:4',
      'src/cli/user.ts:5',
      'src/cli/user.ts:6',
    ]);
  });
});
