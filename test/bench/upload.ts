/**
 * What an uploaded import file costs the server's memory (docs/performance.md, "Imports"): a
 * `slink serve` on SQLite, a CSV near the upload bound (64 MiB: 1,000 rows with a long title
 * each, so the run itself is short) posted as a multipart form with `dryRun` (nothing written).
 * The server's RSS is read from /proc every 10 ms: before, its peak until the 202, its peak
 * while the run reads the file, and once the run ended. ROUNDS uploads one after the other.
 * ENGINE=postgres: a node on a fresh PostgreSQL database instead, which also keeps a copy of the
 * file in the database (import_run_files, for a node that takes the run over) before the 202.
 * Run: bun run bench:upload (ROUNDS=3, MIB=60, ENGINE=sqlite). It runs under bun test, for the CLI helper's
 * clean-up (helpers/cli.ts), and is named apart from the suite's *.test.ts files.
 */
import { test } from 'bun:test';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { superuserWriteKey, tempDir } from '../helpers/cli';
import { freshPostgresUrl } from '../helpers/postgres';
import { BUN, cleanEnv, freePort, start, waitHealthy } from '../helpers/proc';
import { waitUntil } from '../helpers/wait';
import { mb, peakRss, rssOf } from './stats-export';

const rounds = Number(process.env.ROUNDS ?? 3);
const mib = Number(process.env.MIB ?? 60);
const engine = process.env.ENGINE === 'postgres' ? 'postgres' : 'sqlite';

/** The server's resident memory in MiB. */
const rssMib = (pid: number) => mb(rssOf(pid));

test('upload memory', async () => {
  const dir = tempDir();
  const db = join(dir, 'slink.db');
  const pg: Record<string, string> = engine === 'postgres' ? { SLINK_DATABASE_URL: await freshPostgresUrl() } : {};
  const key = await superuserWriteKey(db, pg);
  const port = freePort();
  const server = start([BUN, 'run', 'src/index.ts', 'serve'], port, {
    env: cleanEnv({
      SLINK_DB: db,
      SLINK_PORT: String(port),
      SLINK_HOSTNAME: '127.0.0.1',
      SLINK_RATE_LIMIT: '1000000',
      ...pg,
    }),
  });
  try {
    await waitHealthy(server, 30_000);
    const rows = 1000;
    const title = 'x'.repeat(Math.floor((mib * 1048576) / rows) - 40);
    const csv = `url,title\n${Array.from({ length: rows }, (_, i) => `https://example.com/p/${i},${title}`).join('\n')}\n`;
    const pid = server.proc.pid;
    for (let round = 1; round <= rounds; round++) {
      Bun.gc(true);
      await Bun.sleep(500);
      const before = rssMib(pid);
      const rss = peakRss(pid, 10);
      const form = new FormData();
      form.set('source', 'csv');
      form.set('dryRun', 'true');
      form.set('file', new File([csv], 'links.csv', { type: 'text/csv' }));
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/imports`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: form,
      });
      const { id } = (await res.json()) as { id: string };
      if (res.status !== 202) throw new Error(`upload answered ${res.status}`);
      const atAnswer = rss.peak();
      rss.restart();
      await waitUntil(
        async () =>
          (
            (await (
              await fetch(`http://127.0.0.1:${port}/api/v1/imports/${id}`, {
                headers: { authorization: `Bearer ${key}` },
              })
            ).json()) as { status: string }
          ).status !== 'running',
        'the run to end',
        120_000,
        20,
      );
      const duringRun = await rss.stop();
      await Bun.sleep(1000);
      const after = rssMib(pid);
      console.log(
        `${engine} round ${round}: ${(csv.length / 1048576).toFixed(1)} MiB uploaded; server RSS before ${before.toFixed(0)} MiB, peak to the 202 ${atAnswer.toFixed(0)} (+${(atAnswer - before).toFixed(0)}), peak while it ran ${duringRun.toFixed(0)} (+${(duringRun - before).toFixed(0)}), 1 s after ${after.toFixed(0)} (+${(after - before).toFixed(0)})`,
      );
    }
    console.log(
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await server.stop(10_000);
  }
}, 600_000);
