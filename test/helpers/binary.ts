/**
 * dist/slink built by `bun run build`, once per test process: every test file that needs the
 * binary awaits the same build (bun test runs the files in one process).
 */
import { chmodSync, copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUN, cleanEnv, ROOT, run } from './proc';

let built: Promise<string> | null = null;

/** Builds dist/slink (the first call; later calls wait for the same build); resolves to the build's output. */
export function buildBinary(): Promise<string> {
  built ??= run([BUN, 'run', 'build'], { cwd: ROOT, env: cleanEnv(), timeoutMs: 170_000 }).then((build) => {
    if (build.code !== 0) throw new Error(`bun run build failed (${build.code}):\n${build.stdout}\n${build.stderr}`);
    return build.stdout;
  });
  return built;
}

/** A new empty folder holding nothing but a copy of dist/slink; returns the folder. */
export function binaryAlone(): string {
  const dir = mkdtempSync(join(tmpdir(), 'slink-bin-'));
  copyFileSync(join(ROOT, 'dist', 'slink'), join(dir, 'slink'));
  chmodSync(join(dir, 'slink'), 0o755);
  return dir;
}
