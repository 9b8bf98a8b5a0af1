/**
 * The slug index hook cannot be skipped: every write of links, link_tags, variants or
 * link_counters rows under src/modules runs with a LinkWrite, which only writeLinks hands out
 * (and after whose COMMIT it refreshes the index). The click writer's counters are the one
 * exception: they change no redirect fact (the index counts clicks in memory), and they only
 * update counts: rows of link_counters come and go with their link.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, slugIndexTableObjects, sourceFiles, writesOutsideContext } from './scan';

/** The exempt files, each with the one table it updates and the counter columns it may set. */
const COUNTERS: Record<string, { table: string; columns: string[] }> = {
  'src/modules/links/counters.ts': {
    table: 'link_counters',
    columns: ['clicks', 'uniques', 'bots', 'last_clicked_at'],
  },
  'src/modules/variants/counters.ts': { table: 'variants', columns: ['click_count'] },
};
const objects = slugIndexTableObjects();

describe('slug index writes', () => {
  test('the drizzle objects of links, link_tags, variants and link_counters are known', () => {
    expect([...objects].sort()).toEqual(['linkCounters', 'linkTags', 'links', 'variants']);
  });

  test('every write of them takes a LinkWrite', () => {
    const files = sourceFiles(['src/modules', 'src/cli']).filter((f) => !(f in COUNTERS));
    const found = files.flatMap((f) => writesOutsideContext(f, readFileSync(join(ROOT, f), 'utf8'), objects));
    expect(found).toEqual([]);
  });

  test('the exempt files set click counters only, of their own table', () => {
    for (const [file, allowed] of Object.entries(COUNTERS)) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      expect(text).not.toMatch(/\b(INSERT|DELETE|REPLACE)\b/i);
      // Each UPDATE's table and SET list, up to its WHERE or the end of the statement's string.
      const updates = [...text.matchAll(/UPDATE (\w+) SET ([\s\S]*?)(?: WHERE|['`])/g)];
      expect(updates.length).toBeGreaterThan(0);
      for (const [, table, set] of updates) {
        expect({ file, table }).toEqual({ file, table: allowed.table });
        for (const [, column] of set!.matchAll(/(\w+) = /g)) expect(allowed.columns).toContain(column!);
      }
    }
  });

  test('the scanner reports writes outside a context, and not those inside one', () => {
    const text = [
      'export function bad(db: Db, id: string) {',
      '  db.update(links).set({ slug: "x" }).where(eq(links.id, id)).run();',
      "  db.$client.query('DELETE FROM link_tags WHERE link_id = ?').run(id);",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the fixture is source text holding a template.
      "  db.$client.exec(`UPDATE variants SET code = '${code}'`);",
      '}',
      'export function good(w: LinkWrite, id: string) {',
      '  w.db.delete(variants).where(eq(variants.id, id)).run();',
      '}',
      'writeLinks(deps, (w) => w.db.insert(links).values(row).run());',
      "db.select().from(links).all(); db.update(projects).set({ name: 'a' }).run();",
    ].join('\n');
    expect(writesOutsideContext('src/modules/x/repo.ts', text, objects)).toEqual([
      'src/modules/x/repo.ts:2 writes links (update) without a LinkWrite (take one from writeLinks)',
      'src/modules/x/repo.ts:3 writes link_tags in SQL without a LinkWrite (take one from writeLinks)',
      'src/modules/x/repo.ts:4 writes variants in SQL without a LinkWrite (take one from writeLinks)',
    ]);
  });
});
