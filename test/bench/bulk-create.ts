/**
 * A 200-line bulk create against the event loop (docs/performance.md, "Bulk create"): the real
 * app in process on a SQLite file seeded with `--links` links, 15 requests of 200 new URLs (two
 * tags each). For each: the process's CPU time, the wall time, and the longest the event loop
 * went without a turn while it ran (what a redirect arriving then would have waited), medians
 * printed. With `--compare DIR` (another checkout, dependencies installed) the same runs there
 * first, in a process of its own, alternating with this tree's.
 *
 *   bun run bench:bulk [-- --links 10000 --rounds 2 --compare DIR]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    links: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '2' },
    compare: { type: 'string' },
    /** Internal: run the measurement itself in this process, for the tree at this root. */
    measure: { type: 'string' },
  },
});
const LINKS = Number(values.links);
const REQUESTS = 15;

async function measure(root: string): Promise<void> {
  const { makeTestApp, makeKey, api } = await import(join(root, 'test/helpers/app'));
  const { seedLinks } = await import(join(root, 'test/bench/seed-links'));
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const t = await makeTestApp({ SLINK_RATE_LIMIT: '100000' });
  const { key } = await makeKey(t, 'write');
  await seedLinks(t.deps, LINKS, (i: number) => ({ destination: `https://www.example.org/articles/${i}` }));
  const text = (round: number) =>
    Array.from(
      { length: 200 },
      (_, i) => `https://shop.example.com/r${round}/p/${i}?color=blue&utm_source=news&utm_campaign=c${i}\tTitle ${i}`,
    ).join('\n');
  const cpus: number[] = [];
  const walls: number[] = [];
  const stalls: number[] = [];
  for (let round = 0; round < REQUESTS; round++) {
    let last = performance.now();
    let longest = 0;
    let running = true;
    const tick = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const cpuStart = cpu();
    const started = performance.now();
    const res = await api(t, 'POST', '/links/bulk/create', { key, body: { text: text(round), tags: ['a', 'b'] } });
    cpus.push(cpu() - cpuStart);
    walls.push(performance.now() - started);
    // One more turn, so that a stall ending with the answer is counted.
    await new Promise((resolve) => setImmediate(resolve));
    running = false;
    stalls.push(longest);
    if (res.status !== 201 || res.body.counts.created !== 200) throw new Error(`unexpected answer ${res.status}`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(1);
  console.log(
    `${root}: ${LINKS.toLocaleString('en-US')} links, POST /links/bulk/create of 200 lines, medians of ${REQUESTS}: CPU ${median(cpus)} ms, wall ${median(walls)} ms, longest event-loop stall ${median(stalls)} ms`,
  );
  t.close();
}

if (values.measure) await measure(values.measure);
else {
  const here = join(import.meta.dir, '..', '..');
  const roots = values.compare ? [values.compare, here] : [here];
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const root of roots) {
      const proc = Bun.spawn([process.execPath, import.meta.path, '--measure', root, '--links', String(LINKS)], {
        stdout: 'inherit',
        stderr: 'inherit',
      });
      if ((await proc.exited) !== 0) throw new Error(`the measurement of ${root} failed`);
    }
  }
}
