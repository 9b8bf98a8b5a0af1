/**
 * The spill file: where a stop puts the clicks the database would not take before its deadline
 * (a full or failing disk), beside the database (`<SLINK_DB>.spill`), one line per click as the
 * click store keeps it, never its address or user agent (spill-format.ts). The next start
 * replays it through a SqliteClickWriter before the writer takes new clicks (when that start waits for
 * space, once space returns: catch-up.ts), and deletes it once they are committed.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { GeoLevel } from '../../../config';
import type { Clock } from '../../../lib/clock';
import type { Logger } from '../../../lib/log';
import { enrichClick } from '../enrich/enrich';
import { type GeoLookup, geoAt, noGeo, openGeo } from '../enrich/geo';
import { type SaltReader, VisitorHasher } from '../enrich/visitor';
import type { WireClick } from './record';
import { clickLine, parseSpillLine, type SpillEntry, saltLine } from './spill-format';

/** How long a stop keeps retrying the final flush before it spills (systemd's default stop timeout is 90 s). */
export const STOP_FLUSH_DEADLINE_MS = 60_000;
/** Pause between two attempts of the final flush. */
export const STOP_FLUSH_RETRY_MS = 500;

export function spillPath(dbPath: string): string {
  return `${dbPath}.spill`;
}

export interface SpillOptions {
  geoDb: string | null;
  /** SLINK_GEO: what a click keeps of its place; absent: city. */
  geoLevel?: GeoLevel;
  ownHosts: readonly string[];
  clock: Clock;
}

/** What a spill saved: the clicks now in the file (exactly those the next start replays), and why the rest was not. */
export interface SpillOutcome {
  saved: number;
  error: unknown;
}

export type SpilledClick = Exclude<SpillEntry, { kind: 'salt' }>;

/** The clicks of a spill file, the salts it carries by day, and how many lines could not be read (cut short by a crash). */
export function readSpill(path: string): { clicks: SpilledClick[]; salts: Map<number, string>; unreadable: number } {
  const clicks: SpilledClick[] = [];
  const salts = new Map<number, string>();
  let unreadable = 0;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const entry = parseSpillLine(line);
    if (entry === null) unreadable++;
    else if (entry.kind === 'salt') salts.set(entry.day, entry.salt);
    else clicks.push(entry);
  }
  return { clicks, salts, unreadable };
}

export function openGeoOrNone(geoDb: string | null): GeoLookup {
  try {
    return openGeo(geoDb);
  } catch {
    return noGeo;
  }
}

/**
 * Appends `lines` and fsyncs. A write that fails part-way (the disk fills up) leaves the file
 * cut back to its last whole line, and a failed fsync to what it held before, so the count of
 * whole lines written is exactly what the next start reads back. Returns that count.
 */
function appendLines(path: string, lines: readonly string[]): { written: number; error: unknown } {
  let fd: number;
  try {
    fd = openSync(path, 'a');
  } catch (error) {
    return { written: 0, error };
  }
  let before = 0;
  let done = 0;
  try {
    before = fstatSync(fd).size;
    // A line an earlier stop left cut short must not swallow the first one appended now.
    let lead = '';
    if (before > 0) {
      const last = Buffer.alloc(1);
      const probe = openSync(path, 'r');
      try {
        readSync(probe, last, 0, 1, before - 1);
      } finally {
        closeSync(probe);
      }
      if (last[0] !== 0x0a) lead = '\n';
    }
    const parts = lines.map((line) => Buffer.from(`${line}\n`));
    const bytes = Buffer.concat([Buffer.from(lead), ...parts]);
    let offset = 0;
    try {
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      // Keep the whole lines that made it; cut the one half-written.
      let end = lead.length;
      while (done < parts.length && end + parts[done]!.length <= offset) end += parts[done++]!.length;
      if (done === 0) end = 0;
      ftruncateSync(fd, before + end);
      fsyncSync(fd);
      return { written: done, error };
    }
    done = parts.length;
    fsyncSync(fd);
    return { written: done, error: null };
  } catch (error) {
    // The cut-back or the sync failed: nothing appended can be counted on; take it all back.
    try {
      ftruncateSync(fd, before);
    } catch {}
    return { written: 0, error };
  } finally {
    closeSync(fd);
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
}

/**
 * Saves the clicks a stop could not write, as the click store would keep them: enriched here
 * (geo, agent, the visitor hash with the day's stored salt, read through `salts`; nothing is
 * written to the database). A day with
 * no stored salt (writes failed since it began) gets one made for the file and written on a line
 * of its own; an earlier spill's salt for the day is used again.
 */
export function spillClicks(
  stored: SaltReader,
  path: string,
  clicks: readonly WireClick[],
  options: SpillOptions,
): SpillOutcome {
  let lines: string[];
  try {
    const earlier = existsSync(path) ? readSpill(path).salts : new Map<number, string>();
    const hasher = new VisitorHasher(stored, { readOnly: true, unstored: new Map(earlier) });
    const geo = options.geoLevel === 'none' ? noGeo : geoAt(openGeoOrNone(options.geoDb), options.geoLevel);
    const ctx = { geo, hasher, ownHosts: options.ownHosts };
    const clickLines = clicks.map((click) => clickLine(enrichClick(click, ctx)));
    const salts = [...hasher.unstored].filter(([day]) => !earlier.has(day)).map(([day, salt]) => saltLine(day, salt));
    lines = [...salts, ...clickLines];
    const { written, error } = appendLines(path, lines);
    return { saved: Math.max(0, written - salts.length), error };
  } catch (error) {
    return { saved: 0, error };
  }
}

/**
 * A stop's leftovers (what the final flush could not write) saved to the spill file, logged
 * as every engine's stop logs them. Only what the next start cannot replay counts as lost: the
 * file keeps whole lines only.
 */
export function spillAtStop(
  stored: SaltReader,
  path: string,
  left: readonly WireClick[],
  options: SpillOptions,
  log: Pick<Logger, 'error'>,
): { spilled: number; lost: number } {
  if (left.length === 0) return { spilled: 0, lost: 0 };
  const { saved, error } = spillClicks(stored, path, left, options);
  const lost = left.length - saved;
  if (saved > 0) {
    log.error(`final click flush failed: ${saved} clicks saved to ${path}, written to the database at the next start`);
  }
  if (lost > 0) log.error(`final click flush failed and ${path} could not be written: ${lost} clicks lost`, error);
  return { spilled: saved, lost };
}

/** After a replay's clicks are committed: the file goes (logged when it cannot), and the count is logged. */
export function spillReplayed(path: string, replayed: number, log: Pick<Logger, 'info' | 'error'>): void {
  try {
    rmSync(path);
  } catch (err) {
    log.error(`the replayed clicks are written but ${path} could not be deleted: delete it before the next start`, err);
  }
  log.info(`replayed ${replayed} clicks saved at the last stop`);
}
