/**
 * Another node takes a crashed import over: two real `slink serve` nodes on one real PostgreSQL
 * (helpers/cluster.ts). The node running an import is killed (SIGKILL) mid-run while the source
 * (or the database, for a file) holds it at a gate the test controls; the other node notices,
 * opens the copy of the run's token sealed to it and runs the same run on from its saved
 * position: done, its counts and report whole, every link and click once. While a run lives
 * the other node cannot start the same source (the lock across nodes), the token is stored
 * only sealed, and once the run ends nothing of its token or file is left.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { openPostgres, type Pg } from '../../../src/db/postgres/client';
import { CLICK_BARRIER_LOCK, IMPORT_LOCK_CLASS, IMPORT_NODE_LOCK_CLASS } from '../../../src/db/postgres/locks';
import { type Cluster, startCluster } from '../../helpers/cluster';
import { waitUntil } from '../../helpers/wait';
import { parseCsv } from './e2e-support';
import { ExportServer, ended, header, idOf, linkLine, TOKEN } from './support';

const source = new ExportServer();
let cluster: Cluster;
let sql: Pg;

beforeAll(async () => {
  // The fake other Slink listens on loopback: allowed by the old service's switch.
  // The runs are read until they end: more than the default 600 requests a minute.
  cluster = await startCluster({ nodes: 2, env: { SLINK_UPSTREAM_ALLOW_PRIVATE: '1', SLINK_RATE_LIMIT: '1000000' } });
  sql = openPostgres(cluster.url, 2);
}, 120_000);
afterAll(async () => {
  await cluster?.close();
  await sql?.close();
  source.stop();
});

const clickOf = (text: string, n: number) =>
  `${JSON.stringify({ type: 'click', id: n, linkId: idOf(text), timestamp: Date.UTC(2026, 0, 2) + n })}\n`;

async function json(res: Response) {
  return { status: res.status, body: (await res.json()) as any };
}

const read = async (node: string, id: string) => (await json(await cluster.apiAt(node, `/imports/${id}`))).body;

/** A run of `url` started on n1 (202 with its id), once its first page of `firstPage` links is saved. */
async function startedOnN1(url: string, firstPage: number): Promise<string> {
  const started = await json(
    await cluster.apiAt('n1', '/imports', {
      method: 'POST',
      body: JSON.stringify({ source: 'slink', url, token: TOKEN }),
    }),
  );
  expect(started).toEqual({ status: 202, body: { id: expect.any(String) } });
  const id = started.body.id as string;
  await waitUntil(async () => (await read('n1', id)).links.seen === firstPage, 'the first page saved');
  return id;
}

/**
 * Two pages of two links (`<prefix>a0`, `a1`, then `b0`, `b1`), a click of the first page's link
 * `clicked` (id `clickId`) between them: the run started on n1, held after its first page until
 * `release()`, with n2 waiting on its lock.
 */
async function heldOnN1WithN2Waiting(name: string, prefix: string, clicked: number, clickId: number) {
  await everyNodePublished(2);
  const { promise: held, resolve: release } = Promise.withResolvers<void>();
  const first = Array.from({ length: 2 }, (_, i) => linkLine({ slug: `${prefix}a${i}`, domain: null }));
  const second = Array.from({ length: 2 }, (_, i) => linkLine({ slug: `${prefix}b${i}`, domain: null }));
  const lines = [header(true), ...first, clickOf(first[clicked]!, clickId), ...second];
  const { url } = source.serve(name, lines, { after: 1 + 2 + 1 + 1, release: held });
  const id = await startedOnN1(url, 2);
  await waitingOn('n2', id);
  return { id, release };
}

/** Every node's key published: a run started from now on is sealed to the others. */
async function everyNodePublished(count: number) {
  await waitUntil(async () => {
    // A node's row counts while its lock is held (a killed node's stays until a node drops it).
    const [row] = await sql`SELECT count(DISTINCT n.node) AS n FROM import_nodes n JOIN pg_locks l
        ON l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
          AND l.classid::int8 = ${IMPORT_NODE_LOCK_CLASS}::int8
          AND l.objid::int8 = (hashtext(n.instance)::int8 & 4294967295)`;
    return Number(row.n) === count;
  }, `${count} nodes' keys published`);
}

/** The raw clicks the workspace export holds, per slug. */
async function clicksBySlug(node: string): Promise<Map<string, number>> {
  const res = await cluster.apiAt(node, '/export?clicks=1');
  expect(res.status).toBe(200);
  const lines = (await res.text())
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
  const slugOf = new Map(lines.filter((l) => l.type === 'link').map((l) => [l.id as string, l.slug as string]));
  const out = new Map<string, number>();
  for (const l of lines.filter((l) => l.type === 'click')) {
    const slug = slugOf.get(l.linkId)!;
    out.set(slug, (out.get(slug) ?? 0) + 1);
  }
  return out;
}

/**
 * `node` waits on the source lock of the run `id` (a statement of its own queued behind the
 * running node's lock): PostgreSQL grants it the instant that node's session ends.
 */
async function waitingOn(node: string, id: string) {
  await waitUntil(async () => {
    const rows = await sql`SELECT 1 FROM pg_locks l
      JOIN pg_stat_activity a ON a.pid = l.pid
      JOIN import_runs r ON r.id = ${id}
      WHERE l.locktype = 'advisory' AND NOT l.granted AND l.objsubid = 2
        AND l.classid::int8 = ${IMPORT_LOCK_CLASS}::int8
        AND l.objid::int8 = (hashtext(r.identity)::int8 & 4294967295)
        AND a.application_name = ${`slink ${node}`}`;
    return rows.length === 1;
  }, `${node} waiting on the run's lock`);
}

async function leftOf(id: string) {
  const [keys] = await sql`SELECT count(*) AS n FROM import_run_keys WHERE run_id = ${id}`;
  const [files] = await sql`SELECT count(*) AS n FROM import_run_files WHERE run_id = ${id}`;
  return { keys: Number(keys.n), files: Number(files.n) };
}

describe('postgres', () => {
  test('the node running an import dies: the other takes it over from its saved position, every link and click once', async () => {
    await everyNodePublished(2);
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    // Two pages: three links and a click, then two links and a click; held after the first.
    const first = Array.from({ length: 3 }, (_, i) => linkLine({ slug: `tk-a${i}`, domain: null }));
    const second = Array.from({ length: 2 }, (_, i) => linkLine({ slug: `tk-b${i}`, domain: null }));
    const lines = [header(true), ...first, clickOf(first[0]!, 1), ...second, clickOf(second[0]!, 2)];
    const { url, served } = source.serve('takeover', lines, { after: 1 + 3 + 1 + 1, release: held });
    const id = await startedOnN1(url, 3);

    // One run of a source at a time across nodes: n2 cannot start it while n1 runs it.
    const again = await json(
      await cluster.apiAt('n2', '/imports', {
        method: 'POST',
        body: JSON.stringify({ source: 'slink', url, token: TOKEN }),
      }),
    );
    expect({ status: again.status, code: again.body.error?.code, field: again.body.error?.field }).toEqual({
      status: 409,
      code: 'conflict',
      field: 'source',
    });
    // The token is stored only sealed, to n2 alone.
    const copies = await sql`SELECT instance, sealed FROM import_run_keys WHERE run_id = ${id}`;
    expect(copies.length).toBe(1);
    const stored = JSON.stringify(await sql`SELECT * FROM import_runs WHERE id = ${id}`) + JSON.stringify(copies);
    expect(stored).not.toContain(TOKEN);
    expect(stored).not.toContain(Buffer.from(TOKEN).toString('base64').slice(0, 12));
    // n2 does not look for it now and then: it waits on the run's lock, granted when n1 dies.
    await waitingOn('n2', id);

    await cluster.killNode('n1');
    release();
    const final = await ended(() => read('n2', id), 'the run taken over to end');
    expect(final).toMatchObject({
      id,
      status: 'done',
      links: { seen: 5, created: 5, skipped: 0, failed: 0 },
      clicks: { imported: 2 },
      errors: [],
    });
    // The report is the whole run's, each source link once, in order.
    const report = parseCsv(await (await cluster.apiAt('n2', `/imports/${id}/report.csv`)).text());
    expect(report.slice(1).map((r) => [r[0], r[1]])).toEqual([...first, ...second].map((l) => [idOf(l), 'created']));
    // The source was asked by n1, by n2's refused start (its check), then by n2 with the token it opened.
    expect(served.asked).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
    const listed = await json(await cluster.apiAt('n2', '/links?q=tk-&limit=100'));
    expect(listed.body.items.map((l: any) => l.slug).sort()).toEqual(['tk-a0', 'tk-a1', 'tk-a2', 'tk-b0', 'tk-b1']);
    expect(Object.fromEntries(await clicksBySlug('n2'))).toMatchObject({ 'tk-a0': 1, 'tk-b0': 1 });
    expect(await leftOf(id)).toEqual({ keys: 0, files: 0 });
    await cluster.startNode('n1');
  }, 120_000);

  test('a page whose links were made when its node died is counted created by the node taking it over, not skipped', async () => {
    await everyNodePublished(2);
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    const first = Array.from({ length: 2 }, (_, i) => linkLine({ slug: `tkp-a${i}`, domain: null }));
    const second = Array.from({ length: 3 }, (_, i) => linkLine({ slug: `tkp-b${i}`, domain: null }));
    const lines = [header(true), ...first, clickOf(first[0]!, 11), ...second, clickOf(second[1]!, 12)];
    const { url } = source.serve('in-flight', lines, { after: 1 + 2 + 1 + 1, release: held });
    const id = await startedOnN1(url, 2);
    // The gate: the click barrier held, so the second page's links are made and its history waits.
    const barrier = await sql.reserve();
    try {
      await barrier`SELECT pg_advisory_lock(${CLICK_BARRIER_LOCK})`;
      release();
      await waitUntil(async () => {
        const [row] = await sql`SELECT count(*) AS n FROM import_links WHERE run_id = ${id}`;
        const waiting = await sql`SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name = 'slink n1'`;
        return Number(row.n) === 5 && waiting.length > 0;
      }, 'the second page’s links made and its history waiting');
      await waitingOn('n2', id);
      await cluster.killNode('n1');
    } finally {
      await barrier`SELECT pg_advisory_unlock(${CLICK_BARRIER_LOCK})`;
      barrier.release();
    }
    const final = await ended(() => read('n2', id), 'the run taken over to end');
    // The second page's links were this run's: created, once each, none "imported before".
    expect(final).toMatchObject({
      id,
      status: 'done',
      links: { seen: 5, created: 5, skipped: 0, failed: 0 },
      clicks: { imported: 2 },
      errors: [],
    });
    const report = parseCsv(await (await cluster.apiAt('n2', `/imports/${id}/report.csv`)).text());
    expect(report.slice(1).map((r) => [r[0], r[1], r[3]])).toEqual(
      [...first, ...second].map((l) => [idOf(l), 'created', '']),
    );
    expect(Object.fromEntries(await clicksBySlug('n2'))).toMatchObject({ 'tkp-a0': 1, 'tkp-b1': 1 });
    await cluster.startNode('n1');
  }, 120_000);

  test('a page whose history was stored when its node died before saving it: its clicks counted in the run, none stored twice', async () => {
    await everyNodePublished(2);
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    const first = Array.from({ length: 2 }, (_, i) => linkLine({ slug: `tkh-a${i}`, domain: null }));
    const second = Array.from({ length: 2 }, (_, i) => linkLine({ slug: `tkh-b${i}`, domain: null }));
    const lines = [
      header(true),
      ...first,
      clickOf(first[0]!, 21),
      ...second,
      clickOf(second[0]!, 22),
      clickOf(second[1]!, 23),
      clickOf(second[1]!, 24),
    ];
    const { url } = source.serve('history-unsaved', lines, { after: 1 + 2 + 1 + 1, release: held });
    const id = await startedOnN1(url, 2);
    // The gate: the report's table locked, so the second page's history is stored and its save waits.
    const { promise: gate, resolve: open } = Promise.withResolvers<void>();
    const { promise: isLocked, resolve: locked } = Promise.withResolvers<void>();
    const holding = sql.begin(async (tx) => {
      await tx`LOCK TABLE import_items IN EXCLUSIVE MODE`;
      locked();
      await gate;
    });
    try {
      await isLocked;
      release();
      await waitUntil(async () => {
        const stored = await sql`SELECT 1 FROM import_links WHERE identity = (SELECT identity FROM import_runs
            WHERE id = ${id}) AND source_id = ANY(${sql.array([idOf(second[0]!), idOf(second[1]!)], 'text')}::text[])
            AND visit_at IS NOT NULL`;
        const waiting = await sql`SELECT 1 FROM pg_locks WHERE relation = 'import_items'::regclass AND NOT granted`;
        return stored.length === 2 && waiting.length > 0;
      }, 'the second page’s history stored and its save waiting');
      await waitingOn('n2', id);
      await cluster.killNode('n1');
    } finally {
      open();
      await holding;
    }
    const final = await ended(() => read('n2', id), 'the run taken over to end');
    expect(final).toMatchObject({
      id,
      status: 'done',
      links: { seen: 4, created: 4, skipped: 0, failed: 0 },
      clicks: { imported: 4 },
      errors: [],
    });
    const stored = await clicksBySlug('n2');
    expect([...stored].filter(([slug]) => slug.startsWith('tkh-')).sort()).toEqual([
      ['tkh-a0', 1],
      ['tkh-b0', 1],
      ['tkh-b1', 2],
    ]);
    await cluster.startNode('n1');
  }, 120_000);

  /**
   * A file run started on n1 and taken over by n2 before its first page is written: `pad` blank
   * lines after each link line (skipped by the reader) make the file as large as a test needs;
   * `rows`: the rows of import_run_files the copy takes.
   */
  async function fileTakenOver(prefix: string, pad: number, rows: number) {
    await everyNodePublished(2);
    const links = Array.from({ length: 3 }, (_, i) => linkLine({ slug: `${prefix}${i}`, domain: null }));
    const file = [header(true), ...links.flatMap((l) => [l, '\n'.repeat(pad)]), clickOf(links[1]!, 7)];
    // The gate: the links table locked, so n1's first page waits to write its links.
    const { promise: gate, resolve: open } = Promise.withResolvers<void>();
    const { promise: isLocked, resolve: locked } = Promise.withResolvers<void>();
    const holding = sql.begin(async (tx) => {
      await tx`LOCK TABLE links IN EXCLUSIVE MODE`;
      locked();
      await gate;
    });
    await isLocked;
    const form = new FormData();
    form.set('source', 'slink');
    form.set('file', new File(file, 'export.ndjson', { type: 'application/x-ndjson' }));
    const res = await fetch(`${cluster.node('n1').base}/api/v1/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cluster.key}` },
      body: form,
    });
    const started = await json(res);
    expect(started).toEqual({ status: 202, body: { id: expect.any(String) } });
    const id = started.body.id as string;
    expect(await leftOf(id)).toEqual({ keys: 1, files: rows });
    await waitUntil(
      async () => (await sql`SELECT 1 FROM pg_locks WHERE relation = 'links'::regclass AND NOT granted`).length > 0,
      'n1 waiting to write its first page',
    );
    await cluster.killNode('n1');
    open();
    await holding;
    const final = await ended(() => read('n2', id), 'the file run taken over to end');
    expect(final).toMatchObject({
      id,
      status: 'done',
      url: null,
      links: { seen: 3, created: 3, skipped: 0, failed: 0 },
      clicks: { imported: 1 },
      errors: [],
    });
    const listed = await json(await cluster.apiAt('n2', `/links?q=${prefix}&limit=100`));
    expect(listed.body.items.map((l: any) => l.slug).sort()).toEqual([0, 1, 2].map((i) => `${prefix}${i}`));
    expect((await clicksBySlug('n2')).get(`${prefix}1`)).toBe(1);
    expect(await leftOf(id)).toEqual({ keys: 0, files: 0 });
    await cluster.startNode('n1');
  }

  test('a file run is taken over too: its file is kept with the run while it lives', async () => {
    await fileTakenOver('tkf-', 0, 1);
  }, 120_000);

  test('a file larger than a row of its copy is kept in rows of 1 MiB and read back whole by the node taking over', async () => {
    // Three links 0.9 MiB apart: 2.7 MiB, three rows, a link line in each.
    await fileTakenOver('tkl-', 900 * 1024, 3);
  }, 120_000);

  test('a node that stops while it runs an import hands it over: the other runs it on', async () => {
    const { id, release } = await heldOnN1WithN2Waiting('handover', 'tks-', 1, 3);
    // SIGTERM: n1 stops the run at its page boundary without ending it, and exits cleanly.
    expect(await cluster.stopNode('n1')).toBe(0);
    release();
    const final = await ended(() => read('n2', id), 'the run handed over to end');
    expect(final).toMatchObject({
      id,
      status: 'done',
      links: { seen: 4, created: 4, skipped: 0, failed: 0 },
      clicks: { imported: 1 },
      errors: [],
    });
    const listed = await json(await cluster.apiAt('n2', '/links?q=tks-&limit=100'));
    expect(listed.body.items.map((l: any) => l.slug).sort()).toEqual(['tks-a0', 'tks-a1', 'tks-b0', 'tks-b1']);
    expect((await clicksBySlug('n2')).get('tks-a1')).toBe(1);
    expect(await leftOf(id)).toEqual({ keys: 0, files: 0 });
    await cluster.startNode('n1');
  }, 120_000);

  test('a node waiting on a run’s lock stops waiting when it stops: no error, nothing of it left, the run goes on', async () => {
    const { id, release } = await heldOnN1WithN2Waiting('wait-stopped', 'tkw-', 0, 31);
    // SIGTERM: n2's wait is cancelled, its connection closed, and it exits cleanly.
    expect(await cluster.stopNode('n2')).toBe(0);
    expect(cluster.output()).not.toContain(`waiting on run ${id}`);
    // Nothing of n2 left: no connection (none waiting on the lock), the lock n1's alone.
    await waitUntil(
      async () => (await sql`SELECT 1 FROM pg_stat_activity WHERE application_name = 'slink n2'`).length === 0,
      'n2’s connections gone',
    );
    const holders = await sql`SELECT a.application_name AS node, l.granted FROM pg_locks l
      JOIN pg_stat_activity a ON a.pid = l.pid
      JOIN import_runs r ON r.id = ${id}
      WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.classid::int8 = ${IMPORT_LOCK_CLASS}::int8
        AND l.objid::int8 = (hashtext(r.identity)::int8 & 4294967295)`;
    expect(holders.map((h: any) => ({ ...h }))).toEqual([{ node: 'slink n1', granted: true }]);
    release();
    expect(await ended(() => read('n1', id), 'the run to end on n1')).toMatchObject({
      id,
      status: 'done',
      links: { seen: 4, created: 4, skipped: 0, failed: 0 },
      errors: [],
    });
    await cluster.startNode('n2');
  }, 120_000);

  test('no live node can open the run’s token (every node restarted): it is failed interrupted, as before', async () => {
    await everyNodePublished(2);
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    const links = Array.from({ length: 3 }, (_, i) => linkLine({ slug: `tki-${i}`, domain: null }));
    const lines = [header(true), links[0]!, clickOf(links[0]!, 4), links[1]!, links[2]!];
    const { url } = source.serve('orphan', lines, { after: 1 + 1 + 1 + 1, release: held });
    const id = await startedOnN1(url, 1);
    // The node holding the copy dies, then the one running it; n2 comes back with a new key.
    await cluster.killNode('n2');
    await cluster.killNode('n1');
    release();
    await cluster.startNode('n2');
    // Found by n2's own look, before anyone reads it: its sealed copies go with it.
    await waitUntil(
      async () => (await sql`SELECT status FROM import_runs WHERE id = ${id}`)[0].status === 'failed',
      'the run marked interrupted by a node’s look',
    );
    const final = await read('n2', id);
    expect(final).toMatchObject({
      id,
      status: 'failed',
      links: { seen: 1, created: 1 },
      errors: [{ source: '', reason: 'interrupted: run it again to resume' }],
    });
    expect(await leftOf(id)).toEqual({ keys: 0, files: 0 });
    // Started again, the source resumes from the position the run saved.
    const again = await json(
      await cluster.apiAt('n2', '/imports', {
        method: 'POST',
        body: JSON.stringify({ source: 'slink', url, token: TOKEN }),
      }),
    );
    expect(again.status).toBe(202);
    expect(await ended(() => read('n2', again.body.id))).toMatchObject({
      status: 'done',
      links: { seen: 2, created: 2, skipped: 0 },
    });
    await cluster.startNode('n1');
  }, 120_000);
});
