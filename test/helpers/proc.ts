/**
 * Process helpers for tests that drive the real entry point or dist/slink: run a command to
 * completion, start a long-running server, find a free port, wait for /healthz.
 */
import type { Subprocess } from 'bun';

export const ROOT = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');
/** The bun running the tests; spawned processes use the same one. */
export const BUN = process.execPath;

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The test process's environment without any SLINK_* variable, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('SLINK_')) env[k] = v;
  }
  return { ...env, ...extra };
}

export interface RunOptions {
  cwd?: string;
  env: Record<string, string>;
  stdin?: string;
  timeoutMs?: number;
}

/** Runs `cmd` to completion and returns its exit code and full output. */
export async function run(cmd: string[], opts: RunOptions): Promise<RunResult> {
  const proc = Bun.spawn(cmd, {
    cwd: opts.cwd ?? ROOT,
    env: opts.env,
    stdin: opts.stdin === undefined ? 'ignore' : new Blob([opts.stdin]),
    stdout: 'pipe',
    stderr: 'pipe',
    timeout: opts.timeoutMs ?? 20_000,
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/**
 * Runs a system program (initdb, rsvg-convert, zbarimg, openssl, mount) to completion in the
 * test process's environment. Asynchronously, never through the synchronous spawn: under a test
 * worker's descriptor churn Bun's spawnSync can lose a child's exit and wait until the test's
 * timeout kills the child, a failure that names no cause.
 */
export function tool(cmd: string[], timeoutMs = 20_000): Promise<RunResult> {
  return run(cmd, { env: process.env as Record<string, string>, timeoutMs });
}

/** A TCP port nothing listens on right now (bound on port 0, then released). */
export function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') });
  const port = probe.port;
  probe.stop(true);
  if (port === undefined) throw new Error('no free port');
  return port;
}

export interface RunningProcess {
  proc: Subprocess<'ignore', 'pipe', 'pipe'>;
  base: string;
  /** Everything the process wrote until it exited. */
  stdout: Promise<string>;
  /** What it has written to stdout so far (the log as an operator reads it while it runs). */
  output(): string;
  stderr: Promise<string>;
  /** SIGTERM, then wait for the exit code (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number>;
  /** SIGKILL if still running; never throws. For afterAll/finally. */
  kill(): void;
}

/** Starts a long-running process (a server) and collects its output in the background. */
export function start(cmd: string[], port: number, opts: Omit<RunOptions, 'stdin' | 'timeoutMs'>): RunningProcess {
  const proc = Bun.spawn(cmd, {
    cwd: opts.cwd ?? ROOT,
    env: opts.env,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let written = '';
  const stdout = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) written += decoder.decode(chunk, { stream: true });
    return written;
  })();
  const stderr = new Response(proc.stderr).text();
  return {
    proc,
    base: `http://127.0.0.1:${port}`,
    stdout,
    output: () => written,
    stderr,
    async stop(graceMs = 10_000) {
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      try {
        return await proc.exited;
      } finally {
        clearTimeout(timer);
      }
    },
    kill() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    },
  };
}

/** Polls GET /healthz until 200; throws with the server's output if it exits or never answers. */
export async function waitHealthy(server: RunningProcess, timeoutMs = 20_000): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.proc.exitCode !== null || server.proc.signalCode !== null) {
      throw new Error(
        `server exited (${server.proc.exitCode ?? server.proc.signalCode}) before it was healthy:\n${await server.stdout}\n${await server.stderr}`,
      );
    }
    try {
      const res = await fetch(`${server.base}/healthz`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return res;
    } catch {
      // not listening yet
    }
    await Bun.sleep(50);
  }
  server.kill();
  throw new Error(`server not healthy within ${timeoutMs} ms:\n${await server.stdout}\n${await server.stderr}`);
}

/** The first match of `pattern` in what the server has logged, waiting for it (the server keeps running). */
export async function waitForLog(
  server: RunningProcess,
  pattern: RegExp,
  timeoutMs = 20_000,
): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = server.output().match(pattern);
    if (found) return found;
    if (Date.now() > deadline || server.proc.exitCode !== null) {
      throw new Error(`no log line matching ${pattern} within ${timeoutMs} ms:\n${server.output()}`);
    }
    await Bun.sleep(25);
  }
}

/** The lines of a one-line message, for "non-zero with one line on stderr" checks. */
export function lines(text: string): string[] {
  return text.split('\n').filter((l) => l.length > 0);
}
