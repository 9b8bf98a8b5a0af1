/**
 * wrk (Debian's package) for the redirect benchmarks: installed when missing, run with
 * test/bench/redirect.lua (every link, mixed agents, client addresses in X-Forwarded-For), its
 * figures read from the JSON that script writes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface WrkResult {
  requests: number;
  duration_us: number;
  connect_errors: number;
  read_errors: number;
  write_errors: number;
  status_errors: number;
  timeouts: number;
  p50_us: number;
  p90_us: number;
  p99_us: number;
  max_us: number;
}

/** Installs Debian's wrk when it is not on PATH (apt-get as root, or through sudo). */
export function ensureWrk(): void {
  if (Bun.which('wrk')) return;
  console.log('installing wrk (Debian package)...');
  const root = process.getuid?.() === 0;
  if (!root && !Bun.which('sudo')) throw new Error('wrk is missing and apt-get needs root: apt-get install -y wrk');
  const r = Bun.spawnSync([...(root ? [] : ['sudo']), 'apt-get', 'install', '-y', 'wrk'], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  if (r.exitCode !== 0) throw new Error(`apt-get install wrk exited ${r.exitCode}: ${r.stderr.toString()}`);
}

export interface WrkRun {
  port: number;
  connections: number;
  seconds: number;
  /** One slug a line. */
  slugsFile: string;
  /** Where redirect.lua writes its JSON. */
  outFile: string;
  /** After the slugs file: `zipf` for skewed traffic. */
  scriptArgs?: string[];
}

/** Runs wrk (2 threads) against 127.0.0.1:port; answers its figures and its own CPU time (us). */
export async function runWrk(run: WrkRun): Promise<{ result: WrkResult; cpuUs: number }> {
  const proc = Bun.spawn(
    [
      'wrk',
      '-t2',
      `-c${run.connections}`,
      `-d${run.seconds}s`,
      '--timeout',
      '5s',
      '-s',
      join(import.meta.dir, 'redirect.lua'),
      `http://127.0.0.1:${run.port}`,
      '--',
      run.slugsFile,
      ...(run.scriptArgs ?? []),
    ],
    { env: { ...process.env, WRK_OUT: run.outFile }, stdout: 'pipe', stderr: 'pipe' },
  );
  const code = await proc.exited;
  if (code !== 0) throw new Error(`wrk exited ${code}: ${await new Response(proc.stderr).text()}`);
  const cpuUs = Number(proc.resourceUsage()?.cpuTime.total ?? Number.NaN);
  return { result: JSON.parse(readFileSync(run.outFile, 'utf8')) as WrkResult, cpuUs };
}

/** Until `url` answers `status` (a server started by a benchmark), at most 30 s. */
export async function waitForStatus(url: string, status: number): Promise<void> {
  const until = performance.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(url, { redirect: 'manual' })).status === status) return;
    } catch {
      // not listening yet
    }
    if (performance.now() > until) throw new Error(`${url} did not answer ${status}`);
    await Bun.sleep(10);
  }
}

/** Builds dist/slink (`bun run build.ts` in `root`); throws when the build fails. */
export function buildBinary(root: string): void {
  console.log('building dist/slink...');
  const built = Bun.spawnSync(['bun', 'run', 'build.ts'], { cwd: root, stdout: 'ignore', stderr: 'inherit' });
  if (built.exitCode !== 0) throw new Error('the build failed');
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
export const int = (n: number) => Math.round(n).toLocaleString('en-US');
