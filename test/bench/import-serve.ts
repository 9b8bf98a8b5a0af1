/**
 * What an import costs a server's memory (docs/performance.md, "Imports"): a `slink serve` on
 * SQLite (its writer Worker takes the history's queue) or, with ENGINE=postgres, a node on a
 * fresh PostgreSQL database (the history written by the import's own writer), the API's import
 * route against a Shlink fake in this process holding LINKS links of PER_LINK visits each.
 * HISTORY=none imports the same links without their visits: the server's memory with history
 * over this one is what the history costs beyond the links' own. The server's RSS is read from
 * /proc every 50 ms: before, its peak over the run, a sample at each tenth of the links (flat:
 * no trend after the first tenths), and 2 s and 10 s after the run. Run: LINKS=20000 bun run
 * bench:import-serve (PER_LINK=10, HISTORY=clicks, ENGINE=sqlite; HEAP_LOG=file: the server's
 * event loop thread logs its heap there each second, and after the run once more after a full
 * collection, heap-monitor.ts). It runs under bun test, for
 * the CLI helper's clean-up (helpers/cli.ts), named apart from the suite.
 */
import { test } from 'bun:test';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startShlinkFake } from '../fakes/shlink';
import { superuserWriteKey, tempDir } from '../helpers/cli';
import { freshPostgresUrl } from '../helpers/postgres';
import { BUN, cleanEnv, freePort, start, waitHealthy } from '../helpers/proc';
import { mb, peakRss, rssOf } from './stats-export';

const links = Number(process.env.LINKS ?? 20_000);
const perLink = Number(process.env.PER_LINK ?? 10);
const history = process.env.HISTORY === 'none' ? 'none' : 'clicks';
const engine = process.env.ENGINE === 'postgres' ? 'postgres' : 'sqlite';
/** A file the server's threads append their heap to each second (heap-monitor.ts). */
const heapLog = process.env.HEAP_LOG || undefined;

/** The server's resident memory in MiB. */
const rssMib = (pid: number) => mb(rssOf(pid));

test('import memory in a server', async () => {
  const dir = tempDir();
  const db = join(dir, 'slink.db');
  const pg: Record<string, string> = engine === 'postgres' ? { SLINK_DATABASE_URL: await freshPostgresUrl() } : {};
  const key = await superuserWriteKey(db, pg);
  const port = freePort();
  const fake = startShlinkFake({ generated: { links, visitsPerLink: perLink } });
  const preload = heapLog ? ['--preload', './test/bench/heap-monitor.ts'] : [];
  const server = start([BUN, ...preload, 'src/index.ts', 'serve'], port, {
    env: cleanEnv({
      SLINK_DB: db,
      SLINK_PORT: String(port),
      SLINK_HOSTNAME: '127.0.0.1',
      SLINK_RATE_LIMIT: '1000000',
      // The fake listens on this machine.
      SLINK_UPSTREAM_ALLOW_PRIVATE: '1',
      ...pg,
      ...(heapLog ? { HEAP_MONITOR_FILE: heapLog } : {}),
    }),
  });
  try {
    await waitHealthy(server, 30_000);
    const pid = server.proc.pid;
    await Bun.sleep(1000);
    const before = rssMib(pid);
    const rss = peakRss(pid, 50);
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ source: 'shlink', url: fake.url, token: fake.apiKey, history }),
    });
    if (res.status !== 202) throw new Error(`the import answered ${res.status}: ${await res.text()}`);
    const { id } = (await res.json()) as { id: string };
    const tenths: string[] = [];
    let next = 1;
    let run: { status: string; links?: { created?: number }; clicks?: { imported?: number } };
    for (;;) {
      run = (await (
        await fetch(`http://127.0.0.1:${port}/api/v1/imports/${id}`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as typeof run;
      const made = run.links?.created ?? 0;
      while (next <= 10 && made >= (links * next) / 10) {
        tenths.push(`${next * 10}%: ${rssMib(pid).toFixed(0)} (peak ${rss.peak().toFixed(0)})`);
        next++;
      }
      if (run.status !== 'running') break;
      await Bun.sleep(200);
    }
    const ms = performance.now() - started;
    const peak = await rss.stop();
    await Bun.sleep(2000);
    const after = rssMib(pid);
    await Bun.sleep(8000);
    const later = rssMib(pid);
    let collected = '';
    if (heapLog) {
      // The monitor runs a full collection on the event loop's thread at its next tick.
      await Bun.write(`${heapLog}.gc`, '');
      await Bun.sleep(3000);
      const kept = rssMib(pid);
      collected = `, after a full collection of the event loop's heap ${kept.toFixed(0)} (+${(kept - before).toFixed(0)})`;
    }
    if (run.status !== 'done') throw new Error(`the import ended ${JSON.stringify(run)}`);
    const visits = run.clicks?.imported ?? 0;
    console.log(
      `${engine}, history ${history}, ${perLink} visits a link: ${links.toLocaleString('en-US')} links, ${visits.toLocaleString('en-US')} visits in ${(ms / 1000).toFixed(1)} s (${Math.round((visits * 1000) / ms).toLocaleString('en-US')} visits/s); server RSS before ${before.toFixed(0)} MiB, peak ${peak.toFixed(0)} (+${(peak - before).toFixed(0)}), 2 s after ${after.toFixed(0)} (+${(after - before).toFixed(0)}), 10 s after ${later.toFixed(0)} (+${(later - before).toFixed(0)})${collected}`,
    );
    console.log(`RSS (MiB) as the links were made: ${tenths.join(', ')}`);
    console.log(
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await server.stop(10_000);
    fake.stop();
  }
}, 1_800_000);
