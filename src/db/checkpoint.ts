/**
 * The WAL checkpoint policy of a running server, in one place, whichever connection writes: the
 * API's, the dashboard's, bulk operations, sessions, the click writer's batches, folds, seals
 * and retention steps, an operator command's. The server's own connections never checkpoint
 * when they commit (`wal_autocheckpoint = 0`, client.ts): every checkpoint runs here, on the
 * click writer's thread and connection, so none runs on the event loop that answers redirects.
 *
 * - Due: once the -wal file reaches CHECKPOINT_BYTES, looked at after each of the writer's own
 *   commits and every CHECKPOINT_POLL_MS for everyone else's (bun:sqlite has no commit hook for
 *   another connection; the file's size is what the bound is about anyway). A PASSIVE checkpoint
 *   copies the pages into the database without blocking anyone. When it copied every frame, the
 *   next commit starts the WAL over and journal_size_limit cuts the file to WAL_SIZE_LIMIT. When
 *   commits landed meanwhile (continuous API writes) it cannot have, and the WAL would never
 *   start over: a RESTART checkpoint then copies the frames added since (few: the PASSIVE just
 *   ran) and waits at most RESET_WAIT_MS for the write lock and for readers. While it holds the
 *   write lock, a writer on another connection waits, for that copy; nothing else waits on it.
 * - Idle: once nothing has been written to the WAL for IDLE_CHECKPOINT_MS, a TRUNCATE checkpoint
 *   leaves it at zero bytes (with the same short wait; tried again at a later look).
 *
 * A reader that holds one snapshot for long (`slink backup`'s VACUUM INTO) keeps the WAL from
 * starting over until it ends; a RESTART or TRUNCATE is then tried again after a pause that
 * doubles, up to MAX_RESET_PAUSE_MS, so that writers do not wait RESET_WAIT_MS at every look.
 */
import type { Database } from 'bun:sqlite';
import { statSync } from 'node:fs';

/**
 * WAL pages (4 KiB) after which a checkpoint is due: ~128 MB, not SQLite's ~4 MB (1000 pages).
 * At 100,000 links a batch of 2,000 clicks dirties pages all over links, rollups and the click
 * tail, and a page dirtied again before the checkpoint is copied and synced once
 * (`bun run bench:writer`: 8% less time per click at 32 MB than at 4 MB, a further 11% less at
 * 128 MB; docs/decisions/2026-11-21-writer-cache-and-checkpoints.md).
 */
export const CHECKPOINT_PAGES = 32_768;
export const CHECKPOINT_BYTES = CHECKPOINT_PAGES * 4096;
/**
 * The size the -wal file stays under while the server runs (docs/operations.md): a checkpoint is
 * due at CHECKPOINT_BYTES, and this leaves 32 MB for what the writes add before it has caught
 * up (a look, a PASSIVE, a RESTART: measured, a few hundred ms). Not while a reader holds one
 * snapshot that long (`slink backup`): the WAL cannot start over under it.
 */
export const WAL_BOUND_BYTES = CHECKPOINT_BYTES + 32 * 1024 * 1024;
/** How often the -wal file's size is looked at for the commits of other connections. */
export const CHECKPOINT_POLL_MS = 100;
/** After this long with nothing written to the WAL, it is truncated to zero bytes. */
export const IDLE_CHECKPOINT_MS = 10_000;
/**
 * The longest a RESTART or TRUNCATE waits for the write lock and then, holding it, for readers:
 * an API write may wait that long, on top of the copy of what was added since the last PASSIVE.
 */
export const RESET_WAIT_MS = 10;
/** The longest pause between RESTARTs or TRUNCATEs that a reader kept from starting the WAL over. */
const MAX_RESET_PAUSE_MS = 2000;

export interface CheckpointOptions {
  /** CHECKPOINT_BYTES; tests make it small. */
  checkpointBytes?: number;
  /** IDLE_CHECKPOINT_MS; 0: never truncate when idle. */
  idleMs?: number;
  /** CHECKPOINT_POLL_MS. */
  pollMs?: number;
}

interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/** What the checkpoints of this connection did, for the stop's log line and the tests. */
export interface CheckpointStats {
  /** PASSIVE checkpoints run because the WAL had reached CHECKPOINT_BYTES. */
  passive: number;
  /** RESTARTs after a PASSIVE that could not copy every frame, and how many of them did start the WAL over. */
  restarts: number;
  restarted: number;
  /** TRUNCATEs after an idle period that left the file at zero bytes. */
  truncated: number;
  /** The longest single checkpoint, and all of them together, in ms. */
  longestMs: number;
  totalMs: number;
  /** The longest RESTART or TRUNCATE, in ms: the longest a writer on another connection waited for one. */
  longestResetMs: number;
}

export class WalCheckpointer {
  readonly stats: CheckpointStats = {
    passive: 0,
    restarts: 0,
    restarted: 0,
    truncated: 0,
    longestMs: 0,
    totalMs: 0,
    longestResetMs: 0,
  };
  private readonly walPath: string;
  private readonly checkpointBytes: number;
  private readonly idleMs: number;
  private readonly pollMs: number;
  private timer: Timer | undefined;
  /** The file as the last due checkpoint left it: unchanged since, nothing to copy. */
  private settled = { size: -1, mtimeMs: -1 };
  /** Its size at the last due checkpoint (0 once a look found it below the size again). */
  private dueSize = 0;
  /**
   * RESTARTs or TRUNCATEs in a row that a reader kept from starting the WAL over, and when the
   * next may run: a reader that holds one snapshot for long (a backup) would otherwise cost
   * writers up to RESET_WAIT_MS at every look; the pause doubles up to MAX_RESET_PAUSE_MS.
   */
  private failedResets = 0;
  private resetAfter = 0;

  constructor(
    private readonly sqlite: Database,
    dbPath: string,
    options: CheckpointOptions = {},
  ) {
    this.walPath = `${dbPath}-wal`;
    this.checkpointBytes = options.checkpointBytes ?? CHECKPOINT_BYTES;
    this.idleMs = options.idleMs ?? IDLE_CHECKPOINT_MS;
    this.pollMs = options.pollMs ?? CHECKPOINT_POLL_MS;
  }

  /** Looks at the WAL every pollMs until stop(). */
  start(): void {
    this.timer ??= setInterval(() => this.check(), this.pollMs);
    // A timer must not keep a process or a Worker alive on its own.
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Checkpoints when one is due (the size) or the WAL is idle. Cheap when neither (one stat of
   * the file). Never throws: a failed checkpoint is tried again at the next look.
   */
  check(): void {
    let size: number;
    let mtimeMs: number;
    try {
      ({ size, mtimeMs } = statSync(this.walPath));
    } catch {
      return; // no WAL file: nothing written since the last truncate
    }
    try {
      if (size > 0 && this.idleMs > 0 && Date.now() - mtimeMs >= this.idleMs) this.truncateIdle();
      else if (size < this.checkpointBytes) this.dueSize = 0;
      else if (size !== this.settled.size || mtimeMs !== this.settled.mtimeMs) this.checkpointDue(size, mtimeMs);
    } catch {
      // Closed meanwhile, or the disk fails: the click writes report that; the next look tries again.
    }
  }

  /** The stop's log line: what the checkpoints did this run. */
  describe(): string {
    const s = this.stats;
    return `WAL checkpoints this run: ${s.passive} at ${Math.round(this.checkpointBytes / 1024 / 1024)} MB (then ${s.restarts} restarts, ${s.restarted} of which started it over), ${s.truncated} truncated when idle; the longest restart or truncate ${s.longestResetMs.toFixed(1)} ms, the longest checkpoint ${s.longestMs.toFixed(1)} ms, ${Math.round(s.totalMs)} ms in all`;
  }

  private checkpointDue(size: number, mtimeMs: number): void {
    // Grown since the last due checkpoint: the WAL did not start over after it.
    const stuck = this.dueSize > 0 && size > this.dueSize;
    this.dueSize = size;
    const passive = this.run('PASSIVE', null);
    this.stats.passive++;
    // The WAL starts over only once every frame is copied: not when a reader kept some from
    // being copied, nor when another connection committed while this one copied (the file was
    // written meanwhile), as it does all the time under continuous API writes.
    const after = statSync(this.walPath);
    const written = after.size !== size || after.mtimeMs !== mtimeMs;
    if (stuck || written || passive.busy !== 0 || passive.checkpointed < passive.log) {
      if (performance.now() < this.resetAfter) return;
      this.stats.restarts++;
      // When it cannot, the file keeps growing meanwhile: a later look tries again.
      if (!this.reset('RESTART')) return;
      this.stats.restarted++;
    }
    this.settled = { size: after.size, mtimeMs: after.mtimeMs };
  }

  private truncateIdle(): void {
    if (performance.now() >= this.resetAfter && this.reset('TRUNCATE')) this.stats.truncated++;
  }

  /**
   * A RESTART or TRUNCATE: it holds the write lock while it copies what is left and waits for
   * readers, at most RESET_WAIT_MS. Whether it started the WAL over; if not, the next one waits.
   */
  private reset(mode: 'RESTART' | 'TRUNCATE'): boolean {
    const started = performance.now();
    const done = this.run(mode, RESET_WAIT_MS).busy === 0;
    this.stats.longestResetMs = Math.max(this.stats.longestResetMs, performance.now() - started);
    if (done) this.failedResets = 0;
    else {
      this.failedResets++;
      this.resetAfter = performance.now() + Math.min(MAX_RESET_PAUSE_MS, this.pollMs * 2 ** this.failedResets);
    }
    return done;
  }

  /** One checkpoint; `waitMs`: the busy timeout it runs with (the connection's own is put back). */
  private run(mode: 'PASSIVE' | 'RESTART' | 'TRUNCATE', waitMs: number | null): CheckpointResult {
    const started = performance.now();
    const timeout =
      waitMs === null
        ? null
        : (this.sqlite.query<{ timeout: number }, []>('PRAGMA busy_timeout').get()?.timeout ?? 5000);
    if (waitMs !== null) this.sqlite.exec(`PRAGMA busy_timeout = ${waitMs}`);
    try {
      return this.sqlite.query<CheckpointResult, []>(`PRAGMA wal_checkpoint(${mode})`).get()!;
    } finally {
      if (timeout !== null) this.sqlite.exec(`PRAGMA busy_timeout = ${timeout}`);
      const ms = performance.now() - started;
      this.stats.totalMs += ms;
      this.stats.longestMs = Math.max(this.stats.longestMs, ms);
    }
  }
}
