/**
 * Writes when each domain was last asked for (lastSeenAt): the redirect notes every request in
 * memory (DomainDirectory.noteSeen); this writes the times that moved once a minute and at the
 * stop. The store keeps the later of its value and the one written, so nodes never move it back.
 */
import { describeError } from '../../lib/errors';
import type { Logger } from '../../lib/log';
import type { DomainDirectory } from './directory';
import type { DomainStore } from './store';

export const SEEN_WRITE_MS = 60_000;

export class DomainSeenWriter {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Pick<DomainStore, 'recordSeen'>,
    private readonly directory: DomainDirectory,
    private readonly log: Logger,
    private readonly everyMs = SEEN_WRITE_MS,
  ) {}

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.flush(), this.everyMs);
    this.timer.unref?.();
  }

  /** Writes the times that moved since the last write (one write at a time; a failure is retried next time). */
  flush(): Promise<void> {
    this.running = this.running.then(async () => {
      const seen = this.directory.unwrittenSeen();
      if (seen.length === 0) return;
      try {
        await this.store.recordSeen(seen);
        this.directory.seenWritten(seen);
      } catch (err) {
        this.log.error(`could not write when domains were last seen (${describeError(err)}); tried again later`);
      }
    });
    return this.running;
  }

  /** Stops the timer and writes what is left (before the database closes). */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}
