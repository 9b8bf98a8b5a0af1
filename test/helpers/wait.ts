/**
 * Waiting on what a test reads, never on a fixed time: polls `read` until it holds, up to a
 * bound long enough for a loaded machine, and fails naming what it waited for.
 */
export async function waitUntil(
  read: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
  everyMs = 2,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await read())) {
    if (performance.now() > deadline) throw new Error(`still waiting after ${timeoutMs} ms for ${what}`);
    await Bun.sleep(everyMs);
  }
}
