/**
 * A module's tables are read and written only by that module: no file under src/modules
 * imports another module's table.ts (a table.ts may, to declare a foreign key) or db/schema,
 * or names another module's table in SQL. The CLI owns no table: it calls services.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
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

/**
 * The clicks and rollups modules show one face each (their public.ts): from outside the folder,
 * only that file is imported (rollups' dimensions.ts too: dependency-free, the dashboard's
 * browser code may reach it; a table.ts for drizzle's schema and foreign keys).
 */
const FACES: Record<string, RegExp> = {
  clicks: /^src\/modules\/clicks\/(public|table)\.ts$/,
  rollups: /^src\/modules\/rollups\/(public|dimensions|table)\.ts$/,
};

/** Every import of `module`'s files from outside its folder that is not through its face. */
function reachesInside(module: string): string[] {
  const folder = `src/modules/${module}/`;
  const files = sourceFiles(['src']).filter((file) => !file.startsWith(folder));
  return files.flatMap((file) =>
    [...readFileSync(join(ROOT, file), 'utf8').matchAll(/\b(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)].flatMap(
      (m) => {
        const target = relative(ROOT, resolve(dirname(join(ROOT, file)), m[1]!));
        const path = /\.(ts|tsx)$/.test(target) ? target : `${target}.ts`;
        return path.startsWith(folder) && !FACES[module]!.test(path) ? [`${file} imports ${m[1]}`] : [];
      },
    ),
  );
}

describe('one face per module', () => {
  test('outside clicks/, only clicks/public.ts (or its table.ts) is imported', () => {
    expect(sourceFiles(['src']).some((f) => /clicks\/public'/.test(readFileSync(join(ROOT, f), 'utf8')))).toBe(true);
    expect(reachesInside('clicks')).toEqual([]);
  });

  test('outside rollups/, only rollups/public.ts, its dimensions.ts (or its table.ts) is imported', () => {
    expect(reachesInside('rollups')).toEqual([]);
  });

  test('the check sees an import that reaches inside', () => {
    const probe = 'src/modules/analytics/clicks.ts';
    const text = readFileSync(join(ROOT, probe), 'utf8');
    expect(text).toContain("'../clicks/public'");
    expect(FACES.clicks!.test('src/modules/clicks/sqlite/raw-read.ts')).toBe(false);
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
