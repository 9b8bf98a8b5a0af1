/**
 * The documentation stays navigable and self-contained: every relative link in the Markdown
 * files (README.md, docs/) resolves to a file inside the repository, and a link's #anchor to a
 * heading of that file (GitHub's heading ids); the README stays a front door under 12,000
 * bytes and lists every docs/ page; the decisions index lists every record; and no file refers
 * to planning documents that live outside the repository.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(import.meta.dir, '..');
const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'data', 'coverage', '.test-output']);

function walk(dir: string, keep: (path: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) out.push(...walk(path, keep));
    } else if (keep(path)) out.push(path);
  }
  return out.sort();
}

const MARKDOWN = walk(ROOT, (path) => path.endsWith('.md'));
const rel = (path: string) => relative(ROOT, path);

/** The text outside fenced code blocks and inline code spans: what Markdown renders as prose. */
function prose(markdown: string): string {
  return markdown.replace(/^([ \t]*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\2[^\n]*$/gm, '').replace(/(`+)[^`\n]*?\1/g, '');
}

/** GitHub's heading id: lower case, punctuation dropped (but `-` and `_`), each space a `-`. */
export function headingSlug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The ids of a file's ATX headings, repeats numbered as GitHub does (`name`, `name-1`, ...). */
function anchorsOf(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^([ \t]*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\2[^\n]*$/gm, '');
  for (const m of withoutFences.matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$/gm)) {
    const base = headingSlug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

/** Link targets: inline `[text](target "title")`, images, and reference definitions `[x]: target`. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const targets: string[] = [];
  for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)/g)) targets.push(m[1]!);
  for (const m of text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) targets.push(m[1]!);
  return targets;
}

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/** Why a relative link from `file` does not resolve, or null when it does. */
export function brokenLink(file: string, target: string): string | null {
  if (EXTERNAL.test(target)) return null;
  const hashAt = target.indexOf('#');
  const pathPart = hashAt < 0 ? target : target.slice(0, hashAt);
  const anchor = hashAt < 0 ? null : decodeURIComponent(target.slice(hashAt + 1));
  const path = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
  if (path !== ROOT && !path.startsWith(ROOT + sep)) return `${target}: outside the repository`;
  if (!existsSync(path)) return `${target}: no such file`;
  if (anchor === null) return null;
  if (!statSync(path).isFile() || !path.endsWith('.md')) return `${target}: an anchor into a file that is not Markdown`;
  if (!anchorsOf(readFileSync(path, 'utf8')).has(anchor)) return `${target}: no heading "#${anchor}" in ${rel(path)}`;
  return null;
}

describe('Markdown links', () => {
  test('the README and docs/ are found', () => {
    expect(MARKDOWN.map(rel)).toContain('README.md');
    expect(MARKDOWN.filter((path) => rel(path).startsWith(`docs${sep}`)).length).toBeGreaterThan(0);
  });

  for (const file of MARKDOWN) {
    test(`${rel(file)}: every relative link resolves`, () => {
      const broken = linkTargets(readFileSync(file, 'utf8'))
        .map((target) => brokenLink(file, target))
        .filter((problem) => problem !== null);
      expect(broken).toEqual([]);
    });
  }

  test('heading ids follow GitHub', () => {
    expect(headingSlug('Stops, crashes and failing writes')).toBe('stops-crashes-and-failing-writes');
    expect(headingSlug('The `slink` CLI')).toBe('the-slink-cli');
    expect(headingSlug('Behind a [reverse proxy](x.md)')).toBe('behind-a-reverse-proxy');
    expect(headingSlug('snake_case and kebab-case: 2 × 3')).toBe('snake_case-and-kebab-case-2--3');
    expect(anchorsOf('# A\n\n## A\n\n```\n# not a heading\n```\n')).toEqual(new Set(['a', 'a-1']));
    expect(anchorsOf('Text.\n\n```sh\n# a comment\n```\n\n## After the code\n')).toEqual(new Set(['after-the-code']));
  });

  test('a broken link is reported', () => {
    const readme = join(ROOT, 'README.md');
    expect(brokenLink(readme, 'docs/no-such-page.md')).toContain('no such file');
    expect(brokenLink(readme, 'docs/architecture.md#no-such-heading')).toContain('no heading');
    expect(brokenLink(readme, '../elsewhere/notes.md')).toContain('outside the repository');
    expect(brokenLink(readme, 'docs/architecture.md#a-click')).toBeNull();
    expect(brokenLink(readme, 'https://example.com/#anything')).toBeNull();
  });
});

describe('the README', () => {
  const readme = join(ROOT, 'README.md');

  test('stays under 12,000 bytes', () => {
    expect(statSync(readme).size).toBeLessThan(12_000);
  });

  test('links every page in docs/', () => {
    const linked = new Set(linkTargets(readFileSync(readme, 'utf8')).map((t) => resolve(ROOT, t.split('#')[0]!)));
    const pages = readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => join(ROOT, 'docs', name));
    pages.push(join(ROOT, 'docs', 'decisions', 'README.md'));
    expect(pages.filter((page) => !linked.has(page)).map(rel)).toEqual([]);
  });

  test('the decisions index lists every record', () => {
    const dir = join(ROOT, 'docs', 'decisions');
    const index = readFileSync(join(dir, 'README.md'), 'utf8');
    const listed = new Set(linkTargets(index).map((t) => basename(t)));
    const records = readdirSync(dir).filter((name) => /^\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.md$/.test(name));
    expect(records.length).toBeGreaterThan(0);
    expect(records.filter((name) => !listed.has(name))).toEqual([]);
    expect(readdirSync(dir).filter((name) => name !== 'README.md' && !records.includes(name))).toEqual([]);
  });
});

describe('no references outside the repository', () => {
  // Spelled in parts, so this file does not match itself.
  const FORBIDDEN = [`..${'/'}shared/`, `CONTRACT${'.md'}`, `STACK${'-'}NOTES`, `DESIGN${'.md'}`];
  const TEXT = /\.(ts|md|sh|json|jsonc|toml|lua|sql)$/;
  const files = [
    ...MARKDOWN,
    ...['src', 'test', 'scripts', '.ci', 'drizzle'].flatMap((dir) =>
      walk(join(ROOT, dir), (path) => TEXT.test(path) || dirname(path) === join(ROOT, '.ci')),
    ),
    ...['build.ts', 'package.json', 'biome.jsonc', 'tsconfig.json', 'bunfig.toml'].map((name) => join(ROOT, name)),
  ];

  test('no Markdown or source file mentions the planning documents', () => {
    const found = [...new Set(files)].flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return FORBIDDEN.filter((word) => text.includes(word)).map((word) => `${rel(file)}: ${word}`);
    });
    expect(found).toEqual([]);
  });
});
