/**
 * The module boundary scanner behind boundaries.test.ts. Reads sources with the TypeScript
 * parser, not regular expressions over whole files, so comments never count and every string
 * or template literal does, wherever it is (a query built in a helper is still SQL).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

export const ROOT = resolve(import.meta.dir, '../..');
const SRC = join(ROOT, 'src');

/** Table name -> the module whose table.ts declares it (`sqliteTable('name'`). */
export function tableOwners(root = ROOT): Map<string, string> {
  const modules = join(root, 'src/modules');
  const owners = new Map<string, string>();
  for (const module of readdirSync(modules)) {
    let text: string;
    try {
      text = readFileSync(join(modules, module, 'table.ts'), 'utf8');
    } catch {
      continue; // A module without tables.
    }
    for (const m of text.matchAll(/sqliteTable\(\s*['"`]([^'"`]+)['"`]/g)) owners.set(m[1]!.toLowerCase(), module);
  }
  return owners;
}

/** Every .ts file under these folders (relative to the root), sorted so the report is stable. */
export function sourceFiles(folders: string[], root = ROOT): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) out.push(relative(root, path));
    }
  };
  for (const folder of folders) walk(join(root, folder));
  return out.sort();
}

/** 'links' for src/modules/links/repo.ts, 'cli' for src/cli/*: the module a file belongs to. */
function moduleOf(srcRelative: string): string {
  const parts = srcRelative.split('/');
  return parts[0] === 'modules' ? parts[1]! : parts[0]!;
}

// A table name right after a keyword that names a table in SQLite's grammar. DELETE FROM and
// INSERT OR IGNORE INTO end in FROM and INTO; UPDATE OR ... and TABLE IF NOT EXISTS skip the clause.
const TABLE_AFTER_KEYWORD =
  /\b(?:from|join|into|update(?:\s+or\s+\w+)?|table(?:\s+if(?:\s+not)?\s+exists)?)\s+["'`[]?([a-z_][a-z0-9_]*)/gi;

/**
 * Boundary violations of one source file (`file` relative to the root: it decides the module and
 * resolves relative imports), as "file:line what" lines.
 */
export function scanSource(file: string, text: string, owners: Map<string, string>): string[] {
  const srcRelative = relative(SRC, join(ROOT, file));
  const own = moduleOf(srcRelative);
  const isTableFile = srcRelative === `modules/${own}/table.ts`;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const report = (pos: number, message: string) =>
    found.push(`${file}:${sf.getLineAndCharacterOfPosition(pos).line + 1} ${message}`);

  const checkImport = (spec: ts.Expression) => {
    if (!ts.isStringLiteralLike(spec) || !spec.text.startsWith('.')) return;
    const target = relative(SRC, resolve(dirname(join(ROOT, file)), spec.text)).replace(/\.ts$/, '');
    if (target === 'db/schema') report(spec.getStart(sf), `imports ${spec.text}: every module's tables at once`);
    const m = /^modules\/([^/]+)\/table$/.exec(target);
    // Another module's table.ts: only a table.ts may, to declare a foreign key.
    if (m && m[1] !== own && !isTableFile) report(spec.getStart(sf), `imports ${spec.text} (tables of ${m[1]})`);
  };

  // Each piece of a template is matched on its own, at its own position, so lines stay exact.
  const checkSql = (pieceText: string, pos: number) => {
    for (const m of pieceText.matchAll(TABLE_AFTER_KEYWORD)) {
      const table = m[1]!.toLowerCase();
      const owner = owners.get(table);
      if (owner === undefined || owner === own) continue;
      const line = sf.getLineAndCharacterOfPosition(pos).line + pieceText.slice(0, m.index).split('\n').length;
      found.push(`${file}:${line} names table ${table} (of ${owner}) in SQL: ${m[0].replace(/\s+/g, ' ')}`);
    }
  };

  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      checkImport(node.moduleSpecifier);
      return;
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0]) {
      checkImport(node.arguments[0]);
    } else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      checkSql(node.text, node.getStart(sf));
    } else if (ts.isTemplateExpression(node)) {
      checkSql(node.head.text, node.head.getStart(sf));
      for (const span of node.templateSpans) checkSql(span.literal.text, span.literal.getStart(sf));
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/**
 * Tables whose rows the slug index is built from: every write of them is a LinkWrites method
 * (links/store.ts), which only the LinkWriter calls. link_counters too: the index starts each
 * link's live count from its stored clicks, and a link's row there is created with the link.
 */
export const SLUG_INDEX_TABLES = ['links', 'link_tags', 'variants', 'link_counters'];

const SQL_WRITE =
  /\b(?:(?:insert|replace)(?:\s+or\s+\w+)?\s+into|update(?:\s+or\s+\w+)?|delete\s+from)\s+["'`[]?([a-z_][a-z0-9_]*)/gi;

/** The drizzle objects of those tables (`export const links = sqliteTable('links'`), by name. */
export function slugIndexTableObjects(root = ROOT): Set<string> {
  const names = new Set<string>();
  for (const module of readdirSync(join(root, 'src/modules'))) {
    let text = '';
    try {
      text = readFileSync(join(root, 'src/modules', module, 'table.ts'), 'utf8');
    } catch {}
    for (const m of text.matchAll(/export const (\w+) = sqliteTable\(\s*['"`](\w+)['"`]/g))
      if (SLUG_INDEX_TABLES.includes(m[2]!)) names.add(m[1]!);
  }
  return names;
}

/**
 * Every write of links, link_tags, variants or link_counters rows in a source file: drizzle
 * insert/update/delete of their objects, or SQL in a string or a template (bun:sqlite's
 * statements, Bun.SQL's tagged templates), each as `file:line writes <what>`.
 */
export function slugIndexWrites(file: string, text: string, tableObjects: Set<string>): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const report = (node: ts.Node, what: string) => {
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    found.push(`${file}:${line} writes ${what}`);
  };
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const arg = node.arguments[0];
      const verb = node.expression.name.text;
      if (['insert', 'update', 'delete'].includes(verb) && arg && ts.isIdentifier(arg) && tableObjects.has(arg.text))
        report(node, `${arg.text} (${verb})`);
    } else if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      for (const m of node.text.matchAll(SQL_WRITE))
        if (SLUG_INDEX_TABLES.includes(m[1]!.toLowerCase())) report(node, `${m[1]} in SQL`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}
