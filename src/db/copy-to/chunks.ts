/** The chunked steps of `slink copy-to` (the statistics' buckets, the raw clicks). */
import type { Pg } from '../postgres/client';
import type { CopyProgress } from './progress';
import { finishStep, type Step, savePosition } from './state';

export interface Chunks<C> {
  /** The chunk starting at a position (synchronous: SQLite), or null when none is left. */
  read(position: number): C | null;
  write(tx: Pg, chunk: C): Promise<void>;
  /** The position after a chunk. */
  next(chunk: C): number;
  /** Run in the step's last transaction. */
  finish?(tx: Pg): Promise<void>;
}

/**
 * A chunked step: each chunk one transaction with its new position. The next chunk is read from
 * SQLite while PostgreSQL inserts the current one (the statement is sent first, then the event
 * loop is given up once so it leaves), so the two processes work at the same time.
 */
export async function copyChunks<C extends { read?: number; rows?: number }>(
  sql: Pg,
  step: Step,
  position: number,
  bar: CopyProgress,
  chunks: Chunks<C>,
): Promise<Step> {
  let next = chunks.read(position);
  for (;;) {
    const chunk = next;
    if (chunk === null) {
      return sql.begin(async (tx) => {
        await chunks.finish?.(tx);
        return finishStep(tx, step);
      });
    }
    const after = chunks.next(chunk);
    await sql.begin(async (tx) => {
      const writing = chunks.write(tx, chunk);
      // Its failure is thrown by the await below; until then it must not count as unhandled.
      writing.catch(() => {});
      await new Promise((resolve) => setImmediate(resolve));
      next = chunks.read(after);
      await writing;
      await savePosition(tx, after);
    });
    bar.advance(chunk.read ?? chunk.rows ?? 0);
  }
}
