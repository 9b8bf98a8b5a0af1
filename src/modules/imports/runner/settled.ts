/** The writes of a page started side by side (its links' variants, its links' history), waited on together. */

/**
 * Waits for every one of the writes started side by side, then throws the first failure: a
 * failure fails the run as it did one write after another, but only once none of its
 * page's writes is still under way.
 */
export async function settled(writes: Promise<unknown>[]): Promise<void> {
  for (const end of await Promise.allSettled(writes)) if (end.status === 'rejected') throw end.reason;
}
