/**
 * How long a crashed import waits for another node (docs/performance.md, "Imports"): two real
 * `slink serve` nodes on a throwaway PostgreSQL (helpers/cluster.ts), an import from a fake
 * other Slink held after its first page; once n2 holds a sealed copy, n1 is killed (SIGKILL)
 * and the run's row is read every millisecond until it names n2: the delay from the kill.
 * Then the source is let go, the run ends, n1 comes back, and the next round begins.
 * Run: bun run bench:takeover (ROUNDS=6). It runs under bun test, for the cluster helper's
 * clean-up (helpers/cli.ts), and is named apart from the suite's *.test.ts files.
 */

import { test } from 'bun:test';
import { loadavg } from 'node:os';
import { openPostgres } from '../../src/db/postgres/client';
import { startCluster } from '../helpers/cluster';
import { waitUntil } from '../helpers/wait';
import { ExportServer, ended, header, idOf, linkLine, TOKEN } from '../modules/imports/support';

const rounds = Number(process.env.ROUNDS ?? 6);

test('takeover delay', async () => {
  const source = new ExportServer();
  const cluster = await startCluster({
    nodes: 2,
    env: { SLINK_UPSTREAM_ALLOW_PRIVATE: '1', SLINK_RATE_LIMIT: '1000000' },
  });
  const sql = openPostgres(cluster.url, 2);
  const delays: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const { promise: held, resolve: release } = Promise.withResolvers<void>();
      const links = Array.from({ length: 3 }, (_, i) => linkLine({ slug: `bt${round}-${i}`, domain: null }));
      const click = `${JSON.stringify({ type: 'click', id: round + 1, linkId: idOf(links[0]!), timestamp: Date.UTC(2026, 0, 2) })}\n`;
      // The first page (a link and its click) is saved once the next link is read; then the source holds.
      const lines = [header(true), links[0]!, click, links[1]!, links[2]!];
      const { url } = source.serve(`round${round}`, lines, { after: 4, release: held });
      const res = await cluster.apiAt('n1', '/imports', {
        method: 'POST',
        body: JSON.stringify({ source: 'slink', url, token: TOKEN }),
      });
      const id = ((await res.json()) as { id: string }).id;
      await waitUntil(async () => {
        const [row] = await sql`SELECT links_seen FROM import_runs WHERE id = ${id}`;
        const [copy] = await sql`SELECT 1 AS one FROM import_run_keys WHERE run_id = ${id}`;
        return Number(row?.links_seen) >= 1 && copy !== undefined;
      }, 'the first page saved and a copy sealed to n2');
      const t0 = performance.now();
      await cluster.killNode('n1');
      await waitUntil(
        async () => (await sql`SELECT node FROM import_runs WHERE id = ${id}`)[0]?.node === 'n2',
        'n2 to take the run over',
        60_000,
        1,
      );
      const delay = performance.now() - t0;
      delays.push(delay);
      console.log(`round ${round + 1}: taken over ${delay.toFixed(0)} ms after the kill`);
      release();
      const final = await ended(
        async () => (await (await cluster.apiAt('n2', `/imports/${id}`)).json()) as { status: string },
      );
      if (final.status !== 'done') throw new Error(`round ${round + 1}: the run ended ${final.status}`);
      await cluster.startNode('n1');
    }
  } finally {
    await cluster.close();
    await sql.close();
    source.stop();
  }
  const sorted = [...delays].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log(
    `takeover delay over ${rounds} rounds: median ${median.toFixed(0)} ms, min ${sorted[0]!.toFixed(0)}, max ${sorted.at(-1)!.toFixed(0)}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}, 900_000);
