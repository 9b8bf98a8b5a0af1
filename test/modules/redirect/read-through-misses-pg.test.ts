/**
 * The shared misses table's bound (PostgreSQL, redirect/read-through/postgres.ts): each node's
 * prune drops the expired rows and keeps no more than the cap, the soonest to expire dropped
 * first, whatever number of nodes wrote them. Real PostgreSQL (helpers/postgres.ts); the cap
 * and the prune's period made small so the test writes few rows.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { openPostgres, type Pg } from '../../../src/db/postgres/client';
import { createPostgresSharedMisses } from '../../../src/modules/redirect/public';
import { freshPostgresUrl } from '../../helpers/postgres';

let sql: Pg;
beforeAll(async () => {
  sql = openPostgres(await freshPostgresUrl(), 4);
});
afterAll(async () => {
  await sql?.close();
});

test('postgres: the misses table keeps at most its cap of rows, the soonest to expire dropped first, across nodes', async () => {
  const now = 1_000_000;
  // Three nodes, each pruning at every 10th row it writes, the cap 25 rows.
  const nodes = Array.from({ length: 3 }, () => createPostgresSharedMisses(sql, { pruneEvery: 10, maxRows: 25 }));
  // An expired row first: gone at the first prune, whatever the cap.
  await sql`INSERT INTO read_through_misses (domain_id, upstream, slug, until) VALUES (1, 'https://old.test', 'gone', ${now - 1}::int8)`;
  let n = 0;
  for (let round = 0; round < 10; round++)
    for (const node of nodes) {
      // Each later slug expires later (the newest written are kept).
      for (let i = 0; i < 10; i++, n++)
        await node.remember(1, 'https://old.test', `scan-${n}`, now + 3_600_000 + n, now);
      const [row] = await sql`SELECT count(*)::int4 AS n FROM read_through_misses`;
      // Right after a node's prune: at most the cap.
      expect(row.n).toBeLessThanOrEqual(25);
    }
  const kept = await sql`SELECT slug FROM read_through_misses ORDER BY until`;
  expect(kept.map((r: any) => r.slug)).toEqual(Array.from({ length: 25 }, (_, i) => `scan-${n - 25 + i}`));
  // A kept one is still recalled by any node; a dropped one is not (it is asked again).
  expect(await nodes[2]!.recall(1, 'https://old.test', `scan-${n - 1}`, now)).toBe(now + 3_600_000 + n - 1);
  expect(await nodes[0]!.recall(1, 'https://old.test', 'scan-0', now)).toBeNull();
});
