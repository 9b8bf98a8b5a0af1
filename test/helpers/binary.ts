/**
 * dist/slink built by `bun run build`, once per test run: every test file that needs the binary
 * awaits the same build. Under `bun test --parallel` the files run in several worker processes:
 * the first to ask builds, under a lock folder named for the run (the `bun test` process), and
 * the others wait for its outcome, so that no build rewrites dist/ while another file copies it.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUN, cleanEnv, ROOT, run } from './proc';

const BUILD_TIMEOUT_MS = 170_000;
const LOCK_PREFIX = 'slink-build-';

let built: Promise<string> | null = null;

/** A process's start time (clock ticks since boot): with its pid, names it apart from a later process given the same pid. */
function startTime(pid: number): string | null {
  try {
    // Field 22 of /proc/<pid>/stat, counted after the command's closing parenthesis.
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]!;
  } catch {
    return null;
  }
}

/** The lock folders of runs that are over (a few bytes each): removed. */
function sweep(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(LOCK_PREFIX)) continue;
    const [pid, started] = name.slice(LOCK_PREFIX.length).split('-');
    if (startTime(Number(pid)) !== started) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

async function build(): Promise<string> {
  const r = await run([BUN, 'run', 'build'], { cwd: ROOT, env: cleanEnv(), timeoutMs: BUILD_TIMEOUT_MS });
  if (r.code !== 0) throw new Error(`bun run build failed (${r.code}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** The build of this run: made here when this process is the first to ask, else waited for. */
async function buildOnce(): Promise<string> {
  // A --parallel worker's run is its parent; without --parallel the run is this process.
  const runPid = process.env.BUN_TEST_WORKER_ID === undefined ? process.pid : process.ppid;
  const lock = join(tmpdir(), `${LOCK_PREFIX}${runPid}-${startTime(runPid)}`);
  sweep();
  try {
    mkdirSync(lock);
  } catch {
    const deadline = Date.now() + BUILD_TIMEOUT_MS;
    for (;;) {
      if (existsSync(join(lock, 'out'))) return readFileSync(join(lock, 'out'), 'utf8');
      if (existsSync(join(lock, 'error'))) throw new Error(readFileSync(join(lock, 'error'), 'utf8'));
      if (Date.now() > deadline)
        throw new Error(`no build of dist/slink by another test process within ${BUILD_TIMEOUT_MS} ms`);
      await Bun.sleep(200);
    }
  }
  try {
    const out = await build();
    writeFileSync(join(lock, 'out'), out);
    return out;
  } catch (err) {
    writeFileSync(join(lock, 'error'), err instanceof Error ? err.message : String(err));
    throw err;
  }
}

/** Builds dist/slink (the first call of the run; later calls wait for the same build); resolves to the build's output. */
export function buildBinary(): Promise<string> {
  built ??= buildOnce();
  return built;
}

/** A new empty folder holding nothing but a copy of dist/slink; returns the folder. */
export function binaryAlone(): string {
  const dir = mkdtempSync(join(tmpdir(), 'slink-bin-'));
  copyFileSync(join(ROOT, 'dist', 'slink'), join(dir, 'slink'));
  chmodSync(join(dir, 'slink'), 0o755);
  return dir;
}
