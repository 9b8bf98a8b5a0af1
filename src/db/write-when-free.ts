/**
 * A background write on the main thread's SQLite connection that never makes the event loop
 * wait for the write lock. The click writer (a Worker on its own connection) holds that lock for
 * a whole batch, up to ~100 ms; a statement that waited for it through busy_timeout would stall
 * every redirect of the process meanwhile. Here the IMMEDIATE transaction is tried with no busy
 * wait, and tried again after a short sleep while the lock is taken, the event loop free.
 * For work that can wait (the webhook sender's bookkeeping), not for a request's own write.
 */
import type { Database } from 'bun:sqlite';

const FIRST_WAIT_MS = 2;
const LONGEST_WAIT_MS = 50;

function isBusy(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === 'SQLITE_BUSY';
}

export async function writeWhenFree<T>(sqlite: Database, work: () => T): Promise<T> {
  const transaction = sqlite.transaction(work);
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
    const timeout = sqlite.query<{ timeout: number }, []>('PRAGMA busy_timeout').get()?.timeout ?? 0;
    sqlite.exec('PRAGMA busy_timeout = 0');
    try {
      return transaction.immediate();
    } catch (err) {
      if (!isBusy(err)) throw err;
    } finally {
      sqlite.exec(`PRAGMA busy_timeout = ${timeout}`);
    }
    await Bun.sleep(wait);
  }
}
