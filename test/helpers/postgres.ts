/**
 * A real PostgreSQL server for the tests, started by the tests themselves: on first use, one
 * throwaway cluster per test process (initdb into a temporary folder, a free port on loopback,
 * trust authentication, run as the `postgres` user when the tests run as root, since the server
 * refuses root), stopped and removed when the process exits. Nothing assumes a server already
 * running. Each test gets its own database, copied from a template migrated once
 * (`CREATE DATABASE ... TEMPLATE`, ~20 ms), so tests never see each other's rows.
 *
 * Under `bun test --parallel` every worker is a process of its own with a cluster of its own (a
 * test that stops the server, as an outage, stops only its worker's), and each file runs in a
 * fresh module registry: the cluster is found again by its folder (`owner` names the process,
 * `cluster.json` its port), the template by a marker file, and database names carry a random
 * part. A watchdog process stops and removes the cluster once the test process is gone, since
 * neither a worker's end nor `bun test`'s runs 'exit' listeners.
 *
 * Every command (initdb, pg_ctl, su) runs through `tool` (proc.ts), with a deadline of its own
 * well inside a test's: a start made with the synchronous spawn once waited out a hook's 30 s
 * and failed as an empty "initdb failed:".
 */
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgres } from '../../src/db/postgres/client';
import { migratePostgres } from '../../src/db/postgres/migrate';
import { processAlive } from '../../src/lib/process-alive';
import { freePort, tool } from './proc';

interface Cluster {
  dir: string;
  port: number;
  bin: string;
  asPostgres: boolean;
  /** The server's command-line settings (port, socket folder, durability off). */
  options?: string;
}

let cluster: Promise<Cluster> | null = null;
/** The cluster once started: what the exit listener and the last afterAll stop, without waiting on anything. */
let running: Cluster | null = null;
let template: Promise<void> | null = null;
let counter = 0;
/** Names this module instance's databases apart from those of the files run before it in the same process. */
const instance = randomBytes(4).toString('hex');
/** How long one initdb or pg_ctl may take: well inside a test's 30 s, so a stuck one says so itself. */
const COMMAND_DEADLINE_MS = 20_000;

/** The folder of initdb and pg_ctl: the newest Debian install, or what `pg_config` says. */
async function postgresBin(): Promise<string> {
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(join(debian, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length) return join(debian, versions[0]!, 'bin');
  }
  const config = await tool(['pg_config', '--bindir']).catch(() => null);
  if (config?.code === 0) return config.stdout.trim();
  throw new Error('PostgreSQL is not installed: run scripts/test-deps.sh (Debian package postgresql)');
}

const quote = (a: string) => `'${a.replaceAll("'", "'\\''")}'`;

/** `args` (the first one a program of the PostgreSQL bin folder) as one shell command, run as `postgres` when the tests run as root. */
function pgCommand(c: Pick<Cluster, 'bin' | 'asPostgres'>, args: string[]): string {
  const command = [join(c.bin, args[0]!), ...args.slice(1)].map(quote).join(' ');
  return c.asPostgres ? `su postgres -s /bin/sh -c ${quote(command)}` : command;
}

async function runPg(c: Pick<Cluster, 'bin' | 'asPostgres'>, args: string[]): Promise<void> {
  const r = await tool(['sh', '-c', pgCommand(c, args)], COMMAND_DEADLINE_MS);
  if (r.code !== 0) throw new Error(`${args[0]} failed (exit ${r.code}): ${r.stderr || r.stdout || '(no output)'}`);
}

/** The uid and gid of the `postgres` account, from /etc/passwd. */
function postgresIds(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (!uid || !gid) throw new Error('no postgres account in /etc/passwd: run scripts/test-deps.sh');
  return { uid: Number(uid), gid: Number(gid) };
}

/** The folder of each test cluster: `slink-pg-*` in the temporary folder, with an `owner` file naming the test process's pid. */
const CLUSTER_PREFIX = 'slink-pg-';

/**
 * Stops and removes the clusters of test processes that are gone without stopping theirs (a
 * killed run, a timeout): a test run never leaves servers behind for long, whatever happened to
 * the one before it. In the background: a folder can hold gigabytes, and the start waits for
 * none of it (renamed first, so that no other start takes it again).
 */
function sweepStaleClusters(bin: string, asPostgres: boolean): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(CLUSTER_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, 'owner'), 'utf8'));
    } catch {
      continue;
    }
    if (!Number.isInteger(owner) || owner <= 0 || processAlive(owner)) continue;
    const gone = join(tmpdir(), `slink-pg-stale-${randomBytes(4).toString('hex')}`);
    try {
      renameSync(dir, gone);
    } catch {
      continue; // Another worker's start took it.
    }
    // Stopped in its new folder (a server started there keeps running from its open files).
    const stop = pgCommand({ bin, asPostgres }, ['pg_ctl', '-D', join(gone, 'data'), '-m', 'immediate', 'stop']);
    detached(`${stop} >/dev/null 2>&1; rm -rf ${quote(gone)}`);
  }
}

/** Runs `script` in a shell of its own session that outlives this process (and its file under --parallel). */
function detached(script: string): void {
  Bun.spawn(['sh', '-c', `setsid sh -c ${quote(script)} </dev/null >/dev/null 2>&1 &`], {
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'ignore',
  }).unref();
}

/** This process's running cluster, started by a file run before this one in the same process. */
async function ownCluster(): Promise<Cluster | null> {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(CLUSTER_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    let c: Cluster;
    try {
      if (Number(readFileSync(join(dir, 'owner'), 'utf8')) !== process.pid) continue;
      c = JSON.parse(readFileSync(join(dir, 'cluster.json'), 'utf8')) as Cluster;
    } catch {
      continue;
    }
    // A file that stopped it (an outage) and did not start it again.
    if (!existsSync(join(dir, 'data', 'postmaster.pid'))) await startPostgresOf(c);
    return c;
  }
  return null;
}

/**
 * Stops and removes the cluster once process `pid` is gone: a shell of its own polling it (no
 * listener of the test process runs when a `bun test` worker or run ends).
 */
function watch(c: Cluster, pid: number): void {
  const stop = pgCommand(c, ['pg_ctl', '-D', join(c.dir, 'data'), '-m', 'immediate', 'stop']);
  detached(`while kill -0 ${pid} 2>/dev/null; do sleep 1; done; ${stop}; rm -rf ${quote(c.dir)}`);
}

async function startCluster(): Promise<Cluster> {
  const own = await ownCluster();
  if (own) return own;
  const bin = await postgresBin();
  const asPostgres = process.getuid?.() === 0;
  sweepStaleClusters(bin, asPostgres);
  const dir = mkdtempSync(join(tmpdir(), CLUSTER_PREFIX));
  writeFileSync(join(dir, 'owner'), String(process.pid));
  if (asPostgres) {
    const { uid, gid } = postgresIds();
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const c: Cluster = { dir, port: 0, bin, asPostgres };
  await runPg(c, ['initdb', '-D', join(dir, 'data'), '--auth=trust', '-U', 'slink', '--no-sync', '-E', 'UTF8']);
  // A port free when probed may be taken before the server binds it (another worker's server):
  // then another one.
  for (let attempt = 1; ; attempt++) {
    c.port = freePort();
    // fsync off: a test cluster dies with its tests, and durability costs seconds per suite here.
    c.options = `-c listen_addresses=127.0.0.1 -p ${c.port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
    try {
      await startPostgresOf(c);
      break;
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
  writeFileSync(join(dir, 'cluster.json'), JSON.stringify(c));
  watch(c, process.pid);
  // `bun test` runs no 'exit' listeners: test/helpers/stop-postgres.ts (a preload) stops it after
  // the last test of a run without --parallel, the watchdog in any case; this covers other runners.
  process.on('exit', stopTestCluster);
  running = c;
  return c;
}

/** This process's cluster, started on first use; a start that failed is tried again by the next caller. */
function theCluster(): Promise<Cluster> {
  cluster ??= startCluster().catch((err) => {
    cluster = null;
    throw err;
  });
  return cluster;
}

function startPostgresOf(c: Cluster): Promise<void> {
  return runPg(c, ['pg_ctl', '-D', join(c.dir, 'data'), '-w', '-o', c.options!, '-l', join(c.dir, 'log'), 'start']);
}

/** Stops and removes this process's test cluster, if it started one. */
export function stopTestCluster(): void {
  const c = running;
  if (!c) return;
  running = null;
  cluster = null;
  template = null;
  // Without waiting: the postmaster ends its backends and itself in a moment either way. The
  // folder holds a database per test (gigabytes by the end of a run): removed by a process of
  // its own, so the end of the run does not wait for it (a long wait there fails the run as a
  // timed-out hook). A folder left by a run that died is swept by the next (sweepStaleClusters).
  const stop = pgCommand(c, ['pg_ctl', '-D', join(c.dir, 'data'), '-m', 'immediate', '-W', 'stop']);
  detached(`${stop} >/dev/null 2>&1; rm -rf ${quote(c.dir)}`);
}

function urlOf(c: Cluster, database: string): string {
  return `postgres://slink@127.0.0.1:${c.port}/${database}`;
}

/** The URL of a new, migrated, empty database of the test cluster (started on first use). */
export async function freshPostgresUrl(): Promise<string> {
  const c = await theCluster();
  // Migrated once per cluster: a later file of the same process finds the marker.
  const ready = join(c.dir, 'template-ready');
  template ??= existsSync(ready)
    ? Promise.resolve()
    : (async () => {
        const admin = openPostgres(urlOf(c, 'postgres'), 1);
        // Left half-made by a file that ended while making it.
        await admin.unsafe('DROP DATABASE IF EXISTS slink_template');
        await admin.unsafe('CREATE DATABASE slink_template');
        await admin.close();
        const tpl = openPostgres(urlOf(c, 'slink_template'), 1);
        await migratePostgres(tpl);
        // A template must have no connection open while it is copied.
        await tpl.close();
        writeFileSync(ready, '');
      })();
  await template;
  const name = `t${process.pid}_${instance}_${++counter}`;
  const admin = openPostgres(urlOf(c, 'postgres'), 1);
  try {
    await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE slink_template`);
  } finally {
    await admin.close();
  }
  return urlOf(c, name);
}

/** The URL of the cluster's maintenance database (to create or drop databases in a test). */
export async function clusterAdminUrl(): Promise<string> {
  return urlOf(await theCluster(), 'postgres');
}

/** Stops the test cluster (fast shutdown: every connection cut), as an outage would; startPostgres brings it back. */
export async function stopPostgres(): Promise<void> {
  if (!cluster) throw new Error('no test cluster is running');
  const c = await cluster;
  await runPg(c, ['pg_ctl', '-D', join(c.dir, 'data'), '-w', '-m', 'fast', 'stop']);
}

/** Starts the test cluster again after stopPostgres, on the same port. */
export async function startPostgres(): Promise<void> {
  if (!cluster) throw new Error('no test cluster');
  await startPostgresOf(await cluster);
}

/**
 * A superuser role of the test cluster that must give its password (scram-sha-256 from loopback,
 * where every other role is trusted): to test passwords that need percent-encoding, and wrong ones.
 */
export async function passwordRole(name: string, password: string): Promise<void> {
  const admin = openPostgres(await clusterAdminUrl(), 1);
  try {
    await admin.unsafe(`CREATE ROLE ${name} LOGIN SUPERUSER PASSWORD '${password.replaceAll("'", "''")}'`);
    const [{ file }] = (await admin`SELECT current_setting('hba_file') AS file`) as [{ file: string }];
    // The first matching line wins: this one before the cluster's "trust" lines.
    writeFileSync(file, `host all ${name} 127.0.0.1/32 scram-sha-256\n${readFileSync(file, 'utf8')}`);
    await admin`SELECT pg_reload_conf()`;
  } finally {
    await admin.close();
  }
}
