/**
 * A real small file system for the full-disk tests: a tmpfs mounted on a temporary folder (CI
 * runs as root; mounting needs it), which a filler file then fills until the kernel refuses more
 * (ENOSPC).
 */
import { expect } from 'bun:test';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tool } from './proc';

const mounts: string[] = [];

/**
 * Unmounts and removes every disk mounted so far. Each test file that mounts one registers it
 * (`afterAll(unmountSmallDisks)`): a hook registered here, when the first file imports this
 * module, would run only at the end of that file.
 */
export async function unmountSmallDisks(): Promise<void> {
  // Every one unmounted first: removing a folder whose lazy unmount is not done yet can fail
  // (EBUSY), and must not leave the mounts after it in place.
  for (const dir of mounts.splice(0)) {
    await tool(['umount', '-l', dir]);
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // An empty folder, left for the system's temporary-file cleanup.
    }
  }
}

/** Mounts a tmpfs of `size` (mount's syntax: `6m`, `16k`) on a new folder and returns the folder. */
export async function smallDisk(size: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'slink-disk-'));
  const mount = await tool(['mount', '-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  expect({ mounted: mount.code, stderr: mount.stderr }).toEqual({ mounted: 0, stderr: '' });
  mounts.push(dir);
  return dir;
}

/** Writes a file in `dir` until the file system refuses more (ENOSPC); returns its path (remove it to free the space). */
export function fill(dir: string, name = 'filler'): string {
  const path = join(dir, name);
  const fd = openSync(path, 'w');
  const chunk = new Uint8Array(4096);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    expect((err as { code?: string }).code).toBe('ENOSPC');
  } finally {
    closeSync(fd);
  }
  return path;
}

/** Reads until `done` holds; throws with the last value after `timeoutMs`. */
export async function poll<T>(
  what: string,
  read: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await Bun.sleep(100);
  }
}
