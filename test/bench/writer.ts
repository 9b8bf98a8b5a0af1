/**
 * Click writer benchmark: what one click costs the writer thread, alone on the machine.
 *
 * Seeds a fresh database with `--links` links (a third with utm params), then writes `--clicks`
 * clicks through the same SqliteClickWriter the writer Worker runs, in batches of MAX_BATCH, spread
 * over every link the way the redirect benchmark spreads them (so a batch holds about one
 * click per link), with mixed user agents, referrers and client addresses (a fifth new).
 * The store folds as the writer Worker's does (every FOLD_MAX_CLICKS clicks or FOLD_MAX_MS),
 * and once more at the end, so everything written is also counted; that last fold is timed
 * with the rest. Reports microseconds per click over the first and the last third of the
 * batches (the file grows as it runs), the longest batch, and the folds' share of the time.
 *
 * Then, on the same grown file, the same number of clicks again through two floors: enrichment
 * alone (no SQL), and enrichment plus appending each raw click to the tail (TailAppender: one
 * prepared insert per click, one transaction per batch), which any design that keeps every click as a row
 * pays. The ratios say how much of the writer's time is rollups, counters and uniques, and how
 * fast a single writer thread could go at best.
 *
 * With `--engine postgres`, the same batches are then written through the PostgreSQL store
 * (clicks/postgres/store.ts: one transaction per batch with its raw clicks and delta, folded as
 * SQLite's writer folds: clicks/postgres/fold.ts) into a
 * throwaway cluster on this box holding the same links, and its figures are printed beside
 * SQLite's: us per click, clicks/s and their ratio to SQLite's, the longest batch, the bytes its
 * click tables and indexes take per click, and the CPU each click cost each part (utime + stime
 * from /proc): this process (every thread: the writer and Bun.SQL's I/O) and PostgreSQL (its
 * postmaster with every backend and worker, as bench:cluster counts it), from the first batch
 * until every click is written, folded and sealed; beside the CPU per click this process spent
 * on the SQLite writer of the same run; and the same by part: the node's event loop (the wire's
 * encode, which runs there in production), the node's writer (the rest of this process) and
 * PostgreSQL.
 *
 * The PostgreSQL links are seeded with what their creation makes (each link's dictionary value
 * and plain click target); `--unnamed-links` leaves them out, as for links made before. Their
 * clicks carry those ids as a PostgreSQL node's slug index gives them (read with the links
 * through the links store); `--ids-looked-up` leaves them out, so the writer looks them up.
 *
 * PostgreSQL's counters start at 0 clicks, as a new service's; `--counters-at 1000-5000` starts
 * each link's at a random count in that range, as a service that has run a while (what the
 * counters update costs depends on it: links/postgres/click-order.ts). The share of the counters
 * updates that were HOT (pg_stat_user_tables) is printed with the rest.
 *
 * Every batch reaches the writers as the writer Worker receives it (capture/wire.ts: encoded and
 * decoded here, both counted), and the wire alone is timed on every batch beside the JSON text it
 * replaced. `--steps` prints the PostgreSQL writer's main-thread CPU per click by step of a batch
 * and a fold (lib/step-cpu.ts).
 *
 *   bun run bench:writer [-- --links 100000 --clicks 200000 --fold-max-clicks 20000 --fold-max-ms 1000 --engine postgres --unnamed-links --ids-looked-up --counters-at 1000-5000 --steps]
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pgClickNames } from '../../src/compose/stores';
import { CHECKPOINT_BYTES, WalCheckpointer } from '../../src/db/checkpoint';
import { applyPragmas } from '../../src/db/client';
import { num, openPostgres } from '../../src/db/postgres/client';
import { systemClock } from '../../src/lib/clock';
import { markStep, startSteps, stopSteps } from '../../src/lib/step-cpu';
import { MAX_BATCH, toWire } from '../../src/modules/clicks/capture/flusher';
import type { ClickRecord, WireClick } from '../../src/modules/clicks/capture/record';
import { decodeSlice, encodeSlice } from '../../src/modules/clicks/capture/wire';
import { enrichClick } from '../../src/modules/clicks/enrich/enrich';
import { openGeo } from '../../src/modules/clicks/enrich/geo';
import { VisitorHasher } from '../../src/modules/clicks/enrich/visitor';
import { PostgresClickWriter } from '../../src/modules/clicks/postgres/store';
import { namePlainTargetsPg } from '../../src/modules/clicks/postgres/targets';
import { sqliteSalts } from '../../src/modules/clicks/sqlite/salts';
import { SqliteClickWriter } from '../../src/modules/clicks/sqlite/store';
import { TailAppender } from '../../src/modules/clicks/sqlite/tail-append';
import { FOLD_MAX_CLICKS, FOLD_MAX_MS } from '../../src/modules/clicks/store';
import { createPostgresLinkStore } from '../../src/modules/links/postgres/store';
import type { RedirectRow } from '../../src/modules/links/public';
import { clickIdsOf, plainTargetOf } from '../../src/modules/redirect/public';
import { nameLinkValuesPg } from '../../src/modules/rollups/postgres/values';
import { RollupValues } from '../../src/modules/rollups/rollup-values';
import { prng } from '../helpers/random';
import { cpuByThread, cpuUse, treeCpuUs } from './cpu-use';
import { benchPostgres, PG_CLICK_TABLES } from './pg-cluster';
import { benchDeps, NO_PARAMS, seedLinks } from './seed-links';

const { values } = parseArgs({
  options: {
    links: { type: 'string', default: '100000' },
    clicks: { type: 'string', default: '200000' },
    'fold-max-clicks': { type: 'string', default: String(FOLD_MAX_CLICKS) },
    'fold-max-ms': { type: 'string', default: String(FOLD_MAX_MS) },
    /** postgres: the same clicks also through the PostgreSQL store, on a throwaway cluster (pg-cluster.ts). */
    engine: { type: 'string', default: 'sqlite' },
    /** PostgreSQL's links without the dictionary value and plain click target their creation makes: links made before it did. */
    'unnamed-links': { type: 'boolean', default: false },
    /** PostgreSQL's clicks without the ids the slug index gives them (WireClick.linkValue, targetId): the writer looks them up. */
    'ids-looked-up': { type: 'boolean', default: false },
    /** PostgreSQL's counters at the start: `low-high` clicks each, at random; 0 when not given. */
    'counters-at': { type: 'string' },
    /** PostgreSQL: the main thread's CPU per click by step of a batch and a fold (lib/step-cpu.ts). */
    steps: { type: 'boolean', default: false },
  },
});
const LINKS = Number(values.links);
const [COUNTS_LOW, COUNTS_HIGH] = (values['counters-at'] ?? '0-0').split('-').map(Number) as [number, number];
const countsAt = prng(20261130);
const CLICKS = Math.ceil(Number(values.clicks) / MAX_BATCH) * MAX_BATCH;

const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'curl/8.5.0',
  'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
];
const REFERRERS = [null, 'https://www.google.com/', 'https://t.co/', 'https://news.ycombinator.com/item?id=1'];

/** The flusher's slices (flusher.ts SLICE). */
const SLICE = 500;

/**
 * A batch as the writer Worker receives it from WorkerSink: each slice encoded as the event loop
 * encodes it and decoded as the Worker decodes it (capture/wire.ts); both ends are counted here.
 */
function throughWire(batch: readonly WireClick[]): WireClick[] {
  const received: WireClick[] = [];
  for (let i = 0; i < batch.length; i += SLICE) {
    const started = threadUs();
    const wire = encodeSlice(batch.slice(i, i + SLICE)).slice;
    encodedUs += threadUs() - started;
    decodeSlice(wire, received);
  }
  return received;
}

/**
 * The main thread's CPU in throughWire's encodes, us: the part of a click a node's event loop
 * pays in this benchmark (in production the encode runs there, the rest on the writer Worker).
 */
let encodedUs = 0;

/** This thread's CPU time, us. */
function threadUs(): number {
  const use = process.threadCpuUsage();
  return use.user + use.system;
}

/**
 * The wire alone, on every batch of the run: the main thread's CPU per click to encode and to
 * decode, the present wire and the JSON text it replaced, alternated batch by batch.
 */
function wireAlone(batches: readonly WireClick[][]): string {
  const us = { encode: 0, decode: 0, stringify: 0, parse: 0 };
  let clicks = 0;
  for (const batch of batches) {
    for (let i = 0; i < batch.length; i += SLICE) {
      const slice = batch.slice(i, i + SLICE);
      let t = threadUs();
      const wire = encodeSlice(slice).slice;
      us.encode += threadUs() - t;
      t = threadUs();
      decodeSlice(wire, []);
      us.decode += threadUs() - t;
      t = threadUs();
      const json = JSON.stringify(slice);
      us.stringify += threadUs() - t;
      t = threadUs();
      JSON.parse(json);
      us.parse += threadUs() - t;
      clicks += slice.length;
    }
  }
  const f = (n: number) => (n / clicks).toFixed(2);
  return `the wire alone, main thread CPU per click: columns ${f(us.encode + us.decode)} us (encode ${f(us.encode)}, decode ${f(us.decode)}), JSON ${f(us.stringify + us.parse)} us (stringify ${f(us.stringify)}, parse ${f(us.parse)})`;
}

/** CPU time of this process, every thread (utime + stime from /proc), in microseconds. */
function nodeCpuUs(): number {
  const use = cpuUse(process.pid);
  return use.main + use.worker + use.other;
}

/** What the SQLite writer did in the same run, for the ratios. */
interface SqliteFigures {
  ms: number;
  /** CPU of this process per click while it wrote, us. */
  cpuUs: number;
}

/** The same batches through the PostgreSQL store; `sqlite`: the SQLite writer's figures, for the ratio. */
async function writeOnPostgres(
  links: { id: string; slug: string; destination: string; params: string }[],
  given: WireClick[][],
  sqlite: SqliteFigures,
): Promise<void> {
  let batches = given;
  const cluster = await benchPostgres();
  const sql = openPostgres(cluster.url, 4);
  let closed = false;
  try {
    for (let i = 0; i < links.length; i += 10_000) {
      const chunk = links.slice(i, i + 10_000);
      // Domain 1: the first domain, which the migrations make.
      await sql`INSERT INTO links (id, slug, domain_id, destination, status, params, created_at, updated_at)
        SELECT id, slug, 1, destination, 'active', params::jsonb, 0, 0 FROM unnest(${sql.array(
          chunk.map((l) => l.id),
          'text',
        )}::text[], ${sql.array(
          chunk.map((l) => l.slug),
          'text',
        )}::text[], ${sql.array(
          chunk.map((l) => l.destination),
          'text',
        )}::text[], ${sql.array(
          chunk.map((l) => l.params),
          'text',
        )}::text[]) AS u(id, slug, destination, params)`;
      await sql`INSERT INTO link_counters (link_id, clicks) SELECT * FROM unnest(${sql.array(
        chunk.map((l) => l.id),
        'text',
      )}::text[], ${sql.array(
        chunk.map(() => COUNTS_LOW + Math.floor(countsAt() * (COUNTS_HIGH - COUNTS_LOW + 1))),
        'int8',
      )}::int8[])`;
      // What the links store's creation makes with each link (compose/stores.ts), unless the
      // run is of links made before that (their first click names them).
      if (!values['unnamed-links']) {
        await nameLinkValuesPg(
          sql,
          chunk.map((l) => l.id),
        );
        await namePlainTargetsPg(
          sql,
          chunk.map((l) => ({
            linkId: l.id,
            ...plainTargetOf({ destination: l.destination, params: JSON.parse(l.params) }),
          })),
        );
      }
    }
    await sql`VACUUM ANALYZE`;
    // The ids a PostgreSQL node's slug index reads with each link and its clicks carry (toWire).
    if (!values['ids-looked-up']) {
      /** Reads every link as a node's slug index does at its start (loadInBackground: pages of 1,000); ms. */
      const readAll = async (withIds: boolean, each: (row: RedirectRow) => void): Promise<number> => {
        const linkStore = withIds ? createPostgresLinkStore(sql, pgClickNames(sql)) : createPostgresLinkStore(sql);
        const started = performance.now();
        for (let after = ''; ; ) {
          const rows = await linkStore.redirectPage(after, 1000);
          if (rows.length === 0) break;
          for (const row of rows) each(row);
          after = rows.at(-1)!.id;
        }
        return performance.now() - started;
      };
      // First without the ids, for what they add to a node's start.
      const withoutMs = await readAll(false, () => {});
      const idsOf = new Map<string, { valueId: number; targetId: number }>();
      const withMs = await readAll(true, (row) => idsOf.set(row.id, clickIdsOf(row, plainTargetOf(row))));
      console.log(
        `PostgreSQL: ${idsOf.size.toLocaleString('en-US')} links read as a node's slug index reads them: ${withoutMs.toFixed(0)} ms, with their click ids ${withMs.toFixed(0)} ms`,
      );
      batches = batches.map((batch) =>
        batch.map((c) => {
          const ids = idsOf.get(c.linkId);
          if (ids === undefined || ids.valueId === 0) return c;
          return { ...c, linkValue: ids.valueId, ...(ids.targetId > 0 ? { targetId: ids.targetId } : {}) };
        }),
      );
    } else {
      // Copied all the same: both kinds of run hold as many objects, so the collector's work compares.
      batches = batches.map((batch) => batch.map((c) => ({ ...c })));
    }
    const store = new PostgresClickWriter(sql, openGeo(null), ['localhost'], systemClock);
    const ms: number[] = [];
    // CPU from here until every click is written, folded and sealed (the sealer runs beside the
    // batches): this process's threads, and the server's postmaster with every backend and worker.
    const nodeBefore = nodeCpuUs();
    const threadsBefore = cpuUse(process.pid);
    const byThreadBefore = cpuByThread(process.pid);
    const pgBefore = treeCpuUs(cluster.pid);
    const encodedBefore = encodedUs;
    if (values.steps) startSteps();
    for (const batch of batches) {
      markStep('the benchmark between batches');
      const received = throughWire(batch);
      markStep('wire: encode and decode');
      const started = performance.now();
      await store.writeBatch(received);
      ms.push(performance.now() - started);
    }
    // What is still to fold is counted too, as for SQLite.
    const lastFoldStarted = performance.now();
    markStep('the benchmark between batches');
    await store.fold();
    ms[ms.length - 1] = ms.at(-1)! + performance.now() - lastFoldStarted;
    await store.sealer.idle();
    const total = ms.reduce((a, b) => a + b, 0);
    const clicks = ms.length * MAX_BATCH;
    const nodeUs = (nodeCpuUs() - nodeBefore) / clicks;
    const threadsAfter = cpuUse(process.pid);
    const mainUs = (threadsAfter.main - threadsBefore.main) / clicks;
    const eventLoopUs = (encodedUs - encodedBefore) / clicks;
    const steps = stopSteps();
    const pgUs = (treeCpuUs(cluster.pid) - pgBefore) / clicks;
    const third = Math.floor(ms.length / 3);
    const us = (part: number[]) => ((part.reduce((a, b) => a + b, 0) * 1000) / (part.length * MAX_BATCH)).toFixed(1);
    const [size] = await sql`SELECT sum(pg_total_relation_size(t::regclass))::int8 AS bytes
      FROM unnest(${sql.array(PG_CLICK_TABLES, 'text')}::text[]) AS t`;
    const rate = (n: number, msTotal: number) => Math.round(n / (msTotal / 1000)).toLocaleString('en-US');
    console.log('PostgreSQL (the same batches; one transaction per batch, server on this box, durable defaults):');
    console.log(
      `  writer: first third ${us(ms.slice(0, third))} us/click, last third ${us(ms.slice(-third))} us/click, longest batch ${Math.max(...ms).toFixed(0)} ms`,
    );
    const { folds } = store;
    console.log(
      `  folds: ${folds.count} (as SQLite's, and at the end), ${((folds.ms * 1000) / clicks).toFixed(1)} us/click, ${((100 * folds.ms) / total).toFixed(0)}% of the writer's time, longest ${folds.longestMs.toFixed(0)} ms`,
    );
    console.log(
      `  ${rate(clicks, total)} clicks/s as written (SQLite in this run: ${rate(clicks, sqlite.ms)}, PostgreSQL / SQLite = ${(sqlite.ms / total).toFixed(2)}); click tables and indexes ${(num(size.bytes) / clicks).toFixed(0)} bytes per click`,
    );
    console.log(
      `  CPU per click: node (this process, every thread) ${nodeUs.toFixed(1)} us, PostgreSQL (postmaster and its children) ${pgUs.toFixed(1)} us, together ${(nodeUs + pgUs).toFixed(1)} us (SQLite's writer in this run: ${sqlite.cpuUs.toFixed(1)} us)`,
    );
    console.log(
      `  CPU per click by part: node event loop (the wire's encode; its redirects are bench:cluster's) ${eventLoopUs.toFixed(1)} us, node writer (the rest of this process: the writer and its helper threads) ${(nodeUs - eventLoopUs).toFixed(1)} us, PostgreSQL ${pgUs.toFixed(1)} us`,
    );
    console.log(
      `  the node's CPU per click by thread: main ${mainUs.toFixed(1)} us, the others (the collector's, Bun's I/O, the JIT) ${(nodeUs - mainUs).toFixed(1)} us`,
    );
    const byThread = [...cpuByThread(process.pid)]
      .map(([name, us]) => [name, (us - (byThreadBefore.get(name) ?? 0)) / clicks] as const)
      .filter(([, us]) => us >= 0.05)
      .sort((x, y) => y[1] - x[1]);
    console.log(`  by thread name: ${byThread.map(([name, us]) => `${name} ${us.toFixed(1)} us`).join(', ')}`);
    console.log(`  ${wireAlone(batches)}`);
    if (values.steps) {
      const counted = [...steps.values()].reduce((a, b) => a + b, 0);
      console.log(
        `  the main thread's CPU per click by step (lib/step-cpu.ts; an "awaited" step holds Bun.SQL's socket work and whatever else ran meanwhile), ${(counted / clicks).toFixed(1)} us in all:`,
      );
      for (const [step, us] of [...steps].sort((a, b) => a[0].localeCompare(b[0])))
        console.log(`    ${step}: ${(us / clicks).toFixed(2)} us`);
    }
    // A backend's counts reach pg_stat_user_tables once it is idle or gone: read on a new connection after closing.
    await sql.close();
    closed = true;
    const stats = openPostgres(cluster.url, 1);
    const [hot] = await stats`SELECT n_tup_upd::int8 AS upd, n_tup_hot_upd::int8 AS hot FROM pg_stat_user_tables
      WHERE relname = 'link_counters'`;
    await stats.close();
    console.log(
      `  link_counters (starting at ${COUNTS_LOW}-${COUNTS_HIGH} clicks): ${num(hot.upd).toLocaleString('en-US')} row updates, ${((100 * num(hot.hot)) / Math.max(1, num(hot.upd))).toFixed(0)}% of them HOT`,
    );
  } finally {
    if (!closed) await sql.close();
    cluster.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'slink-bench-writer-'));
try {
  const dbPath = join(dir, 'slink.db');
  const deps = benchDeps(dbPath);
  const db = deps.db;
  const slugs = await seedLinks(deps, LINKS, (i) => ({
    destination: `https://www.example.org/articles/${i}`,
    params: i % 3 === 0 ? { utm_source: 'newsletter', utm_medium: 'email', utm_campaign: `s${i % 40}` } : NO_PARAMS,
  }));
  await deps.linkIndex.loadAll();
  applyPragmas(db.$client, 'writer');
  // The writer Worker's checkpoints: after each of its commits once the WAL is due (its timer,
  // for other connections' commits, has nothing to add here).
  const checkpoints = new WalCheckpointer(db.$client, dbPath);
  const store = new SqliteClickWriter(db.$client, openGeo(null), ['localhost'], systemClock, {
    foldMaxClicks: Number(values['fold-max-clicks']),
    foldMaxMs: Number(values['fold-max-ms']),
    checkpoints,
  });

  /** The batches every phase writes: built once, so each phase gets the same clicks. */
  const batches: WireClick[][] = [];
  for (let i = 0; i < CLICKS; ) {
    const batch = [];
    for (let k = 0; k < MAX_BATCH; k++, i++) {
      const links = deps.linkIndex.table;
      const slot = deps.linkIndex.find(slugs[(i * 7919) % LINKS]!);
      // Four in five addresses come back from a pool of 20,000 visitors; the rest are new.
      const n = Math.random() < 0.2 ? (Math.random() * 0xdfffffff) >>> 0 : 16777216 + ((i * 31) % 20000) * 104729;
      const address = `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
      const record: ClickRecord = {
        time: Date.now(),
        links,
        slot,
        arena: links.arena,
        at: links.blockAt[slot]!,
        variantAt: -1,
        location: links.location(slot),
        code: null,
        address,
        userAgent: AGENTS[i % AGENTS.length]!,
        referrer: REFERRERS[i % REFERRERS.length]!,
        acceptLanguage: 'en-US,en;q=0.9',
        head: false,
        bot: null,
      };
      batch.push(toWire(record));
    }
    batches.push(batch);
  }
  /** Runs `write` on every batch as the Worker receives it from WorkerSink (throughWire); ms per batch. */
  const timed = (write: (batch: WireClick[]) => void): number[] =>
    batches.map((batch) => {
      const received = throughWire(batch);
      const started = performance.now();
      write(received);
      return performance.now() - started;
    });
  // The heap the writing grows: sampled after every batch, against a full collection's live set before it.
  Bun.gc(true);
  const heapBefore = process.memoryUsage().heapUsed;
  let heapPeak = heapBefore;
  let rssPeak = process.memoryUsage.rss();
  const cpuBefore = nodeCpuUs();
  const batchMs = timed((batch) => {
    store.writeBatch(batch);
    const memory = process.memoryUsage();
    heapPeak = Math.max(heapPeak, memory.heapUsed);
    rssPeak = Math.max(rssPeak, memory.rss);
  });
  // What is still pending is counted too: a writer's work is done once its clicks are folded.
  const lastFoldStarted = performance.now();
  store.fold();
  batchMs[batchMs.length - 1] = batchMs.at(-1)! + performance.now() - lastFoldStarted;
  const sqliteCpuUs = (nodeCpuUs() - cpuBefore) / CLICKS;

  Bun.gc(true);
  const heapAfter = process.memoryUsage().heapUsed;
  const sqlite = db.$client;
  const ctx = { geo: openGeo(null), hasher: new VisitorHasher(sqliteSalts(sqlite)), ownHosts: ['localhost'] };
  const dictionary = new RollupValues(sqlite);
  dictionary.refresh();
  const tail = new TailAppender(sqlite, dictionary);
  const appendAll = sqlite.transaction((batch: WireClick[]) => {
    for (const record of batch) tail.append(enrichClick(record, ctx), false);
    tail.finish();
  });
  const enrichMs = timed((batch) => batch.map((record) => enrichClick(record, ctx)));
  const appendMs = timed((batch) => {
    appendAll.immediate(batch);
    tail.commit();
  });

  const total = (ms: number[]) => ms.reduce((a, b) => a + b, 0);
  const perClick = (ms: number[]) => ((total(ms) * 1000) / (ms.length * MAX_BATCH)).toFixed(1);
  const third = Math.floor(batchMs.length / 3);
  console.log(
    `${LINKS.toLocaleString('en-US')} links, ${CLICKS.toLocaleString('en-US')} clicks in batches of ${MAX_BATCH}:`,
  );
  console.log(
    `  writer: first third ${perClick(batchMs.slice(0, third))} us/click, last third ${perClick(batchMs.slice(-third))} us/click, longest batch ${Math.max(...batchMs).toFixed(0)} ms`,
  );
  const { folds } = store;
  console.log(`  CPU per click (this process, every thread): ${sqliteCpuUs.toFixed(1)} us`);
  console.log(
    `  folds: ${folds.count} (every ${values['fold-max-clicks']} clicks or ${values['fold-max-ms']} ms, and at the end), ${((folds.ms * 1000) / CLICKS).toFixed(1)} us/click, ${((100 * folds.ms) / total(batchMs)).toFixed(0)}% of the writer's time, longest ${folds.longestMs.toFixed(0)} ms`,
  );
  const cp = checkpoints.stats;
  console.log(
    `  checkpoints (db/checkpoint.ts): ${cp.passive} at ${CHECKPOINT_BYTES / 1048576} MB of WAL, ${((cp.totalMs * 1000) / CLICKS).toFixed(1)} us/click, longest ${cp.longestMs.toFixed(0)} ms`,
  );
  console.log(
    `  floors, the same clicks again on the grown file: enrichment alone ${perClick(enrichMs)} us/click; enrichment + raw row append ${perClick(appendMs)} us/click`,
  );
  const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;
  console.log(
    `  heap: ${mb(heapBefore)} live before writing, ${mb(heapPeak)} at most while writing, ${mb(heapAfter)} live after; the process's RSS at most ${mb(rssPeak)}`,
  );
  const ceiling = (ms: number[]) => Math.round((ms.length * MAX_BATCH) / (total(ms) / 1000)).toLocaleString('en-US');
  console.log(
    `  one writer thread at most: ${ceiling(batchMs)} clicks/s as written, ${ceiling(appendMs)} clicks/s if it only appended raw rows (writer / append = ${(total(batchMs) / total(appendMs)).toFixed(2)})`,
  );
  if (values.engine === 'postgres') {
    const links = sqlite
      .query<{ id: string; slug: string; destination: string; params: string }, []>(
        'SELECT id, slug, destination, params FROM links',
      )
      .all();
    await writeOnPostgres(links, batches, { ms: total(batchMs), cpuUs: sqliteCpuUs });
  }
  sqlite.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
