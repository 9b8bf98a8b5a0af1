/**
 * The click side's start and stop on PostgreSQL (server.ts calls it through storage-start.ts):
 * nothing to convert; the spill file of a stop that could not reach the database is replayed in
 * one transaction before the writer takes new clicks, then every batch not counted yet (a writer
 * killed before its fold, the replay) is folded (postgres/fold.ts), so counts are whole from the
 * first request. At a stop, what the final flush could not write goes to the spill
 * file, as on SQLite; the day's salts are read from the database when it answers, else the file
 * carries salts of its own (capture/spill.ts).
 */
import { existsSync } from 'node:fs';
import type { Config } from '../../../config';
import { num, type Pg } from '../../../db/postgres/client';
import type { Clock } from '../../../lib/clock';
import type { Logger } from '../../../lib/log';
import { utcDay } from '../../../lib/time';
import { ownHostsOf } from '../capture/pipeline';
import type { WireClick } from '../capture/record';
import { openGeoOrNone, readSpill, spillAtStop, spillPath, spillReplayed } from '../capture/spill';
import type { EnrichedClick } from '../enrich/enrich';
import { noGeo } from '../enrich/geo';
import type { ClickStart } from '../start';
import { PgFolder } from './fold';
import { PostgresClickWriter } from './store';

/** How long a stop waits for the database to say the day's salts before the spill makes its own. */
const STOP_SALT_READ_MS = 2000;

export async function startClickStoragePg(sql: Pg, config: Config, log: Logger, clock: Clock): Promise<ClickStart> {
  const spill = spillPath(config.dbPath);
  const ownHosts = ownHostsOf(config);
  await replaySpillPg(sql, spill, { geoDb: config.geoDb, ownHosts, clock, log });
  try {
    await new PgFolder(sql, clock).fold();
  } catch (err) {
    log.error('counting the clicks written before the start failed; the first flush counts them', err);
  }
  return {
    writerHeld: undefined,
    running() {},
    async stop(left) {
      const salts = left.length > 0 ? await readSalts(sql, left) : new Map<number, string>();
      return spillAtStop(
        { read: (day) => salts.get(day) ?? null },
        spill,
        left,
        { geoDb: config.geoDb, geoLevel: config.privacy.geo, ownHosts, clock },
        log,
      );
    },
  };
}

/** The stored salts of the days of these clicks; none when the database does not answer in time. */
async function readSalts(sql: Pg, clicks: readonly WireClick[]): Promise<Map<number, string>> {
  const days = [...new Set(clicks.map((c) => utcDay(c.time)))];
  const salts = new Map<number, string>();
  let timer: Timer | undefined;
  try {
    const rows = await Promise.race([
      sql`SELECT day, salt FROM visitor_salts WHERE day = ANY(${sql.array(days, 'int4')}::int4[])`,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), STOP_SALT_READ_MS);
      }),
    ]);
    for (const r of rows as { day: string | number; salt: string }[]) salts.set(num(r.day), r.salt);
  } catch {
    // Unreachable: the spill makes salts of its own for these days.
  } finally {
    clearTimeout(timer);
  }
  return salts;
}

interface ReplayOptions {
  geoDb: string | null;
  ownHosts: readonly string[];
  clock: Clock;
  log: Logger;
}

/**
 * Writes the spill file's clicks (if there is one) in one transaction, then deletes the file.
 * A failure leaves the file for the next start, logged; the server starts anyway.
 */
export async function replaySpillPg(sql: Pg, path: string, options: ReplayOptions): Promise<number> {
  if (!existsSync(path)) return 0;
  const { log } = options;
  let replayed = 0;
  try {
    const { clicks, salts, unreadable } = readSpill(path);
    if (unreadable > 0) log.error(`${unreadable} unreadable lines in ${path} skipped`);
    if (clicks.length > 0) {
      const captured = clicks.some((c) => c.kind === 'captured');
      const geo = captured ? openGeoOrNone(options.geoDb) : noGeo;
      const store = new PostgresClickWriter(sql, geo, options.ownHosts, options.clock);
      for (const [day, salt] of salts) store.adoptSalt(day, salt);
      // Hashing a captured click needs its day's salt known here first.
      await store.loadSalts(clicks.map((c) => utcDay(c.click.time)));
      const enriched: EnrichedClick[] = clicks.map((c) => (c.kind === 'enriched' ? c.click : store.enrich(c.click)));
      const outcome = await store.writeEnriched(enriched);
      replayed = outcome.written;
      if (outcome.skipped > 0) log.info(`${outcome.skipped} clicks saved at the last stop skipped: their link is gone`);
    }
  } catch (err) {
    log.error(`replaying the clicks saved at the last stop failed; ${path} is kept for the next start`, err);
    return 0;
  }
  spillReplayed(path, replayed, log);
  return replayed;
}
