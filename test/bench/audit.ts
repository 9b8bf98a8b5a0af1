/**
 * What the audit entry costs a link change (docs/performance.md, "Audit log"): PATCH /links/{id}
 * through the real app in process, in blocks that alternate between the entry written (as
 * always) and the store handed none, in the same run on the same database; p50 and p95 of each.
 * On PostgreSQL the entry is a statement pipelined beside the change's, so the two should match.
 * Then, with `--log N`, N more entries (20 accounts, 12 actions, 100,000 targets, a year) and the
 * p50 of GET /audit's first and a later page under each filter.
 *
 *   bun run bench:audit [-- --engine postgres --requests 2000 --rounds 10 --log 1000000]
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
    log: { type: 'string', default: '0' },
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
const LOG = Number(values.log);
if (LOG > 0) {
  const { insertAuditPostgres, insertAuditSqlite } = await import('../../src/modules/audit/public');
  const actions = ['link.create', 'link.update', 'link.delete', 'project.create', 'domain.update', 'webhook.update'];
  const types = ['link', 'link', 'link', 'project', 'domain', 'webhook'];
  const start = t.clock.now() - 360 * 86_400_000;
  const entryOf = (i: number) => ({
    at: start + Math.floor((i / LOG) * 360 * 86_400_000),
    accountId: `acc_${i % 20}`,
    keyId: null,
    via: 'api' as const,
    action: actions[i % actions.length]!,
    targetType: types[i % types.length]!,
    targetId: `t_${i % 100_000}`,
    fields: ['title'],
  });
  const seeded = performance.now();
  for (let from = 0; from < LOG; from += 10_000) {
    const batch = Array.from({ length: Math.min(10_000, LOG - from) }, (_, k) => entryOf(from + k));
    const address = t.deps.stores.address;
    if (address.engine === 'postgres') {
      const { SQL } = await import('bun');
      const sql = new SQL(address.url);
      await insertAuditPostgres(sql as never, batch);
      await sql.close();
    } else insertAuditSqlite(t.deps.db, batch);
  }
  if (t.deps.stores.address.engine === 'postgres') {
    const { SQL } = await import('bun');
    const sql = new SQL(t.deps.stores.address.url);
    await sql`ANALYZE audit_log`;
    await sql.close();
  } else t.deps.db.$client.run('ANALYZE');
  console.log(`  ${LOG} entries seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
  const page = async (query: string) => {
    const times: number[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 21; i++) {
      const started = performance.now();
      const res = await api(t, 'GET', `/audit?${query}&limit=50`, { key });
      times.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`GET /audit?${query} answered ${res.status}`);
      cursor ??= res.body.nextCursor;
    }
    const later: number[] = [];
    for (let i = 0; i < 11; i++) {
      const started = performance.now();
      await api(t, 'GET', `/audit?${query}&limit=50&cursor=${cursor}`, { key });
      later.push(performance.now() - started);
    }
    return `${quantile(times, 0.5).toFixed(2)} / ${quantile(later, 0.5).toFixed(2)} ms`;
  };
  const mid = start + 180 * 86_400_000;
  for (const query of [
    '',
    'actor=acc_7',
    'action=project.create',
    'targetType=domain',
    'targetType=link&targetId=t_4242',
    `from=${mid}&to=${mid + 86_400_000}`,
    'actor=acc_3&action=webhook.update',
  ])
    console.log(`  GET /audit?${query}: first page / second page p50 ${await page(query)}`);
}
await disposeTestApp(t);
if (engine === 'postgres') stopTestCluster();
