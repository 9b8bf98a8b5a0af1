/**
 * The spill file: where a stop puts the clicks the database would not take before its deadline
 * (a full or failing disk), as WireClick JSON lines beside the database (`<SLINK_DB>.spill`).
 * The next start replays it through a ClickStore (enriched, counted, uniques decided like any
 * click) before the writer takes new clicks, and deletes it once they are committed.
 */
import type { Database } from 'bun:sqlite';
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../../deps';
import type { Clock } from '../../lib/clock';
import { openGeo } from './geo';
import type { WireClick } from './record';
import { ClickStore } from './store';

/** How long a stop keeps retrying the final flush before it spills (systemd's default stop timeout is 90 s). */
export const STOP_FLUSH_DEADLINE_MS = 60_000;
/** Pause between two attempts of the final flush. */
export const STOP_FLUSH_RETRY_MS = 500;

export function spillPath(dbPath: string): string {
  return `${dbPath}.spill`;
}

/** Appends the clicks, one JSON line each, and fsyncs; throws when any of it could not be written. */
export function writeSpill(path: string, clicks: readonly WireClick[]): void {
  const fd = openSync(path, 'a');
  try {
    // A line an earlier stop left cut short must not swallow the first one appended now.
    let text = '';
    const size = fstatSync(fd).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      const probe = openSync(path, 'r');
      try {
        readSync(probe, last, 0, 1, size - 1);
      } finally {
        closeSync(probe);
      }
      if (last[0] !== 0x0a) text = '\n';
    }
    // Without the serial: it names a target only in this process, the replay runs in another.
    for (const { serial: _, ...click } of clicks) text += `${JSON.stringify(click)}\n`;
    const bytes = Buffer.from(text);
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  // The file's entry in its directory, so a new spill file survives a power cut too.
  try {
    const dir = openSync(dirname(path), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  } catch {
    // Not every file system syncs a directory; the file's own data is synced above.
  }
}

function isWireClick(value: unknown): value is WireClick {
  if (typeof value !== 'object' || value === null) return false;
  const c = value as Record<string, unknown>;
  return (
    typeof c.time === 'number' &&
    typeof c.linkId === 'string' &&
    typeof c.location === 'string' &&
    typeof c.paramsJson === 'string' &&
    typeof c.bot === 'boolean'
  );
}

/** The clicks of a spill file, and how many lines could not be read (a line cut short by a crash). */
export function readSpill(path: string): { clicks: WireClick[]; unreadable: number } {
  const clicks: WireClick[] = [];
  let unreadable = 0;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = null;
    }
    if (isWireClick(value)) clicks.push(value);
    else unreadable++;
  }
  return { clicks, unreadable };
}

/**
 * Writes the clicks of the spill file (if there is one) in one transaction through a ClickStore
 * on `sqlite`, folds them, then deletes the file. A replay that fails leaves the file for the
 * next start and is logged; it never stops the start. Returns how many clicks were replayed.
 */
export function replaySpill(
  sqlite: Database,
  path: string,
  options: { geoDb: string | null; ownHosts: string[]; clock: Clock; log: Logger },
): number {
  if (!existsSync(path)) return 0;
  const { log } = options;
  let replayed = 0;
  try {
    const { clicks, unreadable } = readSpill(path);
    if (unreadable > 0) log.error(`${unreadable} unreadable lines in ${path} skipped`);
    if (clicks.length > 0) {
      const store = new ClickStore(sqlite, openGeo(options.geoDb), options.ownHosts, options.clock);
      // One transaction: either every click of the file is written, or none is and the file stays.
      const outcome = store.writeBatch(clicks);
      replayed = outcome.written;
      if (outcome.skipped > 0) log.info(`${outcome.skipped} clicks saved at the last stop skipped: their link is gone`);
      try {
        store.fold();
      } catch (err) {
        // Written: the writer folds them when it opens.
        log.error('folding the replayed clicks failed; the click writer folds them when it opens', err);
      }
    }
  } catch (err) {
    log.error(`replaying the clicks saved at the last stop failed; ${path} is kept for the next start`, err);
    return 0;
  }
  try {
    rmSync(path);
  } catch (err) {
    log.error(`the replayed clicks are written but ${path} could not be deleted: delete it before the next start`, err);
  }
  log.info(`replayed ${replayed} clicks saved at the last stop`);
  return replayed;
}
