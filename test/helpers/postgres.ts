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
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgres } from '../../src/db/postgres/client';
import { migratePostgres } from '../../src/db/postgres/migrate';
import { processAlive } from '../../src/lib/process-alive';
import { freePort } from './proc';

interface Cluster {
  dir: string;
  port: number;
  bin: string;
  asPostgres: boolean;
  /** The server's command-line settings (port, socket folder, durability off). */
  options?: string;
}

let cluster: Cluster | null = null;
let template: Promise<void> | null = null;
let counter = 0;
/** Names this module instance's databases apart from those of the files run before it in the same process. */
const instance = randomBytes(4).toString('hex');

/** The folder of initdb and pg_ctl: the newest Debian install, or what `pg_config` says. */
function postgresBin(): string {
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(join(debian, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length) return join(debian, versions[0]!, 'bin');
  }
  const config = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (config.status === 0) return config.stdout.trim();
  throw new Error('PostgreSQL is not installed: run scripts/test-deps.sh (Debian package postgresql)');
}

function runPg(c: Pick<Cluster, 'bin' | 'asPostgres'>, args: string[]): void {
  const command = [join(c.bin, args[0]!), ...args.slice(1)];
  const r = c.asPostgres
    ? spawnSync(
        'su',
        ['postgres', '-s', '/bin/sh', '-c', command.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ')],
        {
          encoding: 'utf8',
        },
      )
    : spawnSync(command[0]!, command.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args[0]} failed: ${r.stderr || r.stdout}`);
}

/** The folder of each test cluster: `slink-pg-*` in the temporary folder, with an `owner` file naming the test process's pid. */
const CLUSTER_PREFIX = 'slink-pg-';

/**
 * Stops and removes the clusters of test processes that are gone without stopping theirs (a
 * killed run, a timeout): a test run never leaves servers behind for long, whatever happened to
 * the one before it.
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
    try {
      runPg({ bin, asPostgres }, ['pg_ctl', '-D', join(dir, 'data'), '-m', 'immediate', 'stop']);
    } catch {
      // Not running (it was stopped, or never started).
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** This process's running cluster, started by a file run before this one in the same process. */
function ownCluster(): Cluster | null {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(CLUSTER_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    try {
      if (Number(readFileSync(join(dir, 'owner'), 'utf8')) !== process.pid) continue;
      const c = JSON.parse(readFileSync(join(dir, 'cluster.json'), 'utf8')) as Cluster;
      // A file that stopped it (an outage) and did not start it again.
      if (!existsSync(join(dir, 'data', 'postmaster.pid'))) startPostgresOf(c);
      return c;
    } catch {}
  }
  return null;
}

/**
 * Stops and removes the cluster once process `pid` is gone: a shell of its own polling it (no
 * listener of the test process runs when a `bun test` worker or run ends).
 */
function watch(c: Cluster, pid: number): void {
  const quote = (a: string) => `'${a.replaceAll("'", "'\\''")}'`;
  const stop = [join(c.bin, 'pg_ctl'), '-D', join(c.dir, 'data'), '-m', 'immediate', 'stop'].map(quote).join(' ');
  const stopCommand = c.asPostgres ? `su postgres -s /bin/sh -c ${quote(stop)}` : stop;
  const script = `while kill -0 ${pid} 2>/dev/null; do sleep 1; done; ${stopCommand}; rm -rf ${quote(c.dir)}`;
  // Detached twice over (setsid, and a shell that returns at once): a child of the test process
  // would end with the file that spawned it under --parallel.
  spawnSync('sh', ['-c', `setsid sh -c ${quote(script)} </dev/null >/dev/null 2>&1 &`]);
}

function startCluster(): Cluster {
  const own = ownCluster();
  if (own) return own;
  const bin = postgresBin();
  const asPostgres = process.getuid?.() === 0;
  sweepStaleClusters(bin, asPostgres);
  const dir = mkdtempSync(join(tmpdir(), CLUSTER_PREFIX));
  writeFileSync(join(dir, 'owner'), String(process.pid));
  if (asPostgres) {
    const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(dir, Number(id.stdout), Number(gid.stdout));
    chmodSync(dir, 0o700);
  }
  const c: Cluster = { dir, port: 0, bin, asPostgres };
  runPg(c, ['initdb', '-D', join(dir, 'data'), '--auth=trust', '-U', 'slink', '--no-sync', '-E', 'UTF8']);
  // A port free when probed may be taken before the server binds it (another worker's server):
  // then another one.
  for (let attempt = 1; ; attempt++) {
    c.port = freePort();
    // fsync off: a test cluster dies with its tests, and durability costs seconds per suite here.
    c.options = `-c listen_addresses=127.0.0.1 -p ${c.port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
    try {
      startPostgresOf(c);
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
  return c;
}

function startPostgresOf(c: Cluster): void {
  runPg(c, ['pg_ctl', '-D', join(c.dir, 'data'), '-w', '-o', c.options!, '-l', join(c.dir, 'log'), 'start']);
}

/** Stops and removes this process's test cluster, if it started one. */
export function stopTestCluster(): void {
  const c = cluster;
  if (!c) return;
  cluster = null;
  template = null;
  try {
    // Without waiting (-W): the postmaster ends its backends and itself in a moment either way.
    runPg(c, ['pg_ctl', '-D', join(c.dir, 'data'), '-m', 'immediate', '-W', 'stop']);
  } catch {}
  // The folder holds a database per test (gigabytes by the end of a run): removed by a process of
  // its own, so the end of the run does not wait for it (a long wait there fails the run as a
  // timed-out hook). A folder left by a run that died is swept by the next (sweepStaleClusters).
  Bun.spawn(['rm', '-rf', c.dir], { stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' }).unref();
}

function urlOf(c: Cluster, database: string): string {
  return `postgres://slink@127.0.0.1:${c.port}/${database}`;
}

/** The URL of a new, migrated, empty database of the test cluster (started on first use). */
export async function freshPostgresUrl(): Promise<string> {
  cluster ??= startCluster();
  const c = cluster;
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
export function clusterAdminUrl(): string {
  cluster ??= startCluster();
  return urlOf(cluster, 'postgres');
}

/** Stops the test cluster (fast shutdown: every connection cut), as an outage would; startPostgres brings it back. */
export function stopPostgres(): void {
  if (!cluster) throw new Error('no test cluster is running');
  runPg(cluster, ['pg_ctl', '-D', join(cluster.dir, 'data'), '-w', '-m', 'fast', 'stop']);
}

/** Starts the test cluster again after stopPostgres, on the same port. */
export function startPostgres(): void {
  if (!cluster) throw new Error('no test cluster');
  startPostgresOf(cluster);
}

/**
 * A superuser role of the test cluster that must give its password (scram-sha-256 from loopback,
 * where every other role is trusted): to test passwords that need percent-encoding, and wrong ones.
 */
export async function passwordRole(name: string, password: string): Promise<void> {
  const admin = openPostgres(clusterAdminUrl(), 1);
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
