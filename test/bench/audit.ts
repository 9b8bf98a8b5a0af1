/**
 * What the audit entry costs a link change (docs/performance.md, "Audit log"): PATCH /links/{id}
 * through the real app in process, in blocks that alternate between the entry written (as
 * always) and the store handed none, in the same run on the same database; p50 and p95 of each.
 * On PostgreSQL the entry is a statement pipelined beside the change's, so the two should match.
 *
 *   bun run bench:audit [-- --engine postgres --requests 2000 --rounds 10]
 */
import { parseArgs } from 'node:util';
import type { Engine } from '../../src/db/address';
import { api, disposeTestApp, makeKey, makeTestApp } from '../helpers/app';
import { stopTestCluster } from '../helpers/postgres';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'postgres' },
    requests: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '10' },
  },
});
const engine = values.engine as Engine;
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);
const LINKS = 50;

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!;

const t = await makeTestApp({ SLINK_RATE_LIMIT: '1000000' }, { engine });
const { key } = await makeKey(t, 'write', { superuser: true });
const ids: string[] = [];
for (let i = 0; i < LINKS; i++) {
  const res = await api(t, 'POST', '/links', { key, body: { destination: `https://example.com/${i}` } });
  ids.push(res.body.id);
}
const writes = t.deps.stores.linkWrites;
const audited = writes.update.bind(writes);
const timings = { with: [] as number[], without: [] as number[] };
let n = 0;
for (let round = 0; round < ROUNDS * 2; round++) {
  const mode = round % 2 === 0 ? 'with' : 'without';
  // Without: the same store method, handed no entry.
  writes.update = mode === 'with' ? audited : (updates, at) => audited(updates, at);
  for (let i = 0; i < REQUESTS / ROUNDS / 2; i++) {
    const id = ids[n % LINKS]!;
    const started = performance.now();
    const res = await api(t, 'PATCH', `/links/${id}`, { key, body: { title: `Title ${n++}` } });
    timings[mode].push(performance.now() - started);
    if (res.status !== 200) throw new Error(`PATCH answered ${res.status}`);
  }
}
writes.update = audited;
const entries = await api(t, 'GET', '/audit?action=link.update&limit=200', { key });
console.log(
  `${engine}: ${REQUESTS} PATCH /links/{id}, ${ROUNDS} alternating blocks of each` +
    `\n  with the entry:    p50 ${quantile(timings.with, 0.5).toFixed(2)} ms, p95 ${quantile(timings.with, 0.95).toFixed(2)} ms` +
    `\n  without an entry:  p50 ${quantile(timings.without, 0.5).toFixed(2)} ms, p95 ${quantile(timings.without, 0.95).toFixed(2)} ms` +
    `\n  ratio of p50s: ${(quantile(timings.with, 0.5) / quantile(timings.without, 0.5)).toFixed(3)}` +
    `\n  (link.update entries read back, a page of at most 200: ${entries.body.items.length})`,
);
await disposeTestApp(t);
if (engine === 'postgres') stopTestCluster();
