/**
 * The slug index cannot be left stale: every write of links, link_tags, variants or
 * link_counters rows under src/ is in the links store's engine files (the LinkWrites methods,
 * and what a project's deletion does to its links), and only the LinkWriter (links/writer.ts,
 * which refreshes the index after each) reaches those methods. The click writer's counters are
 * the one exception: they change no redirect fact (the index counts clicks in memory), and they
 * only update counts: rows of link_counters come and go with their link.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, slugIndexTableObjects, slugIndexWrites, sourceFiles } from './scan';

/**
 * Where redirect facts are written, one file per engine: the links store, and the variants
 * store's writes, which only the links store's LinkWrites calls.
 */
const STORE_FILES = [
  'src/modules/links/sqlite/store.ts',
  'src/modules/links/postgres/store.ts',
  'src/modules/variants/sqlite/store.ts',
  'src/modules/variants/postgres/store.ts',
];

/** The exempt files, each with the one table it updates and the counter columns it may set. */
const COUNTERS: Record<string, { table: string; columns: string[] }> = {
  'src/modules/links/counters.ts': {
    table: 'link_counters',
    columns: ['clicks', 'uniques', 'bots', 'last_clicked_at', 'fallback_visits'],
  },
  'src/modules/variants/counters.ts': { table: 'variants', columns: ['click_count'] },
  // An import's history (imports/history): where it came from, and a total as the starting
  // count (with another Slink's export, its unique visitors and bots too: countedOnly), which the
  // writer's caller has the slug index read again (its refresh raises the count).
  'src/modules/links/imported-counters.ts': {
    table: 'link_counters',
    columns: ['clicks', 'uniques', 'bots', 'imported_source', 'imported_at', 'imported_history', 'imported_clicks'],
  },
};
const objects = slugIndexTableObjects();

describe('slug index writes', () => {
  test('the drizzle objects of links, link_tags, variants and link_counters are known', () => {
    expect([...objects].sort()).toEqual(['linkCounters', 'linkTags', 'links', 'variants']);
  });

  test('every write of them is in the links store', () => {
    const files = sourceFiles(['src']).filter((f) => !(f in COUNTERS) && !STORE_FILES.includes(f));
    const found = files.flatMap((f) => slugIndexWrites(f, readFileSync(join(ROOT, f), 'utf8'), objects));
    expect(found).toEqual([]);
    for (const f of STORE_FILES) {
      expect(slugIndexWrites(f, readFileSync(join(ROOT, f), 'utf8'), objects).length).toBeGreaterThan(0);
    }
  });

  test('only the LinkWriter reaches the store writes (compose/stores.ts only builds them, links/deps.ts names their type)', () => {
    const reaching = (word: RegExp) =>
      sourceFiles(['src'])
        .filter((f) => word.test(readFileSync(join(ROOT, f), 'utf8')))
        .sort();
    expect(reaching(/\blinkWrites\b/)).toEqual([
      'src/compose/stores.ts',
      'src/modules/links/deps.ts',
      'src/modules/links/writer.ts',
    ]);
    // The variants store's writes are the links store's to call (through the variants' face, which passes them on).
    expect(reaching(/\b(insert|update|delete)Variant(Sqlite|Postgres)\b/)).toEqual(
      [...STORE_FILES, 'src/modules/variants/public.ts'].sort(),
    );
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

  test('the scanner reports writes in code, in SQL strings and in tagged templates', () => {
    const text = [
      'export function bad(db: Db, id: string) {',
      '  db.update(links).set({ slug: "x" }).where(eq(links.id, id)).run();',
      "  db.$client.query('DELETE FROM link_tags WHERE link_id = ?').run(id);",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the fixture is source text holding a template.
      '  await sql`UPDATE variants SET code = ${code} WHERE id = ${id}`;',
      '}',
      "db.select().from(links).all(); db.update(projects).set({ name: 'a' }).run();",
    ].join('\n');
    expect(slugIndexWrites('src/modules/x/repo.ts', text, objects)).toEqual([
      'src/modules/x/repo.ts:2 writes links (update)',
      'src/modules/x/repo.ts:3 writes link_tags in SQL',
      'src/modules/x/repo.ts:4 writes variants in SQL',
    ]);
  });
});
