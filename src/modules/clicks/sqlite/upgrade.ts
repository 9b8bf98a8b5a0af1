/**
 * Upgrade in place: moves the rows of the first click table (`clicks`, one ~340-byte row per
 * redirect) into the lean raw clicks (click_tail, click_targets, the rollup_values dictionary),
 * then drops it. Run by `slink migrate` and by `slink serve` before it listens (docs/operations.md,
 * "Upgrading").
 *
 * Chunks of old rows in id order, each ONE transaction that appends them to the tail (same ids,
 * same timestamps, the first 16 hex of the visitor hash), adds them to the rollups and the link
 * and variant counters, and deletes them from `clicks`. The first chunk also empties the
 * rollups and counters (and marks the upgrade as started in click_state), so when the last chunk
 * commits every statistic and counter is exactly the sum of the raw clicks, as a rebuild from
 * them would make it, without reading them back. A crash anywhere leaves whole chunks: the rows
 * still in `clicks` are exactly those not converted, and the next run carries on from them.
 * When none is left: the fold's watermark and the last id are set and `clicks` is dropped.
 */
import type { Database } from 'bun:sqlite';
import { type Clock, systemClock } from '../../../lib/clock';
import { DAY_MS, utcDay } from '../../../lib/time';
import { prepareLinkCounters } from '../../links/public';
import {
  type ClickDim,
  type ClickDimValues,
  clearRollups,
  DIM_COUNT,
  dimsOf,
  markAllLinkDays,
  RollupAccumulator,
  type RollupClick,
  RollupStore,
  RollupValues,
  valueIdsOf,
} from '../../rollups/public';
import { prepareVariantCounters } from '../../variants/public';
import { FLAG_BOT, FLAG_FIRST_OF_DAY, visitorBits } from '../stored-click';
import { TargetIds } from './click-targets';
import { sealBacklog } from './seal';
import { prepareTailInsert } from './tail-append';

/** Rows per transaction: large enough that commits cost little, small enough to resume close to a crash. */
export const UPGRADE_CHUNK = 20_000;
/** At most one progress line per this many ms (and always the first and the last). */
const PROGRESS_MS = 2_000;

/** A row of the first click table, as that table has it (its own column names). */
export interface OldClickRow {
  id: number;
  link_id: string;
  timestamp: number;
  variant_code: string | null;
  variant_id: string | null;
  destination: string;
  params: string;
  country: string | null;
  city: string | null;
  device: string | null;
  os: string | null;
  browser: string | null;
  referrer: string | null;
  traffic_type: string | null;
  language: string | null;
  bot: number;
  visitor_hash: string | null;
  first_of_day: number;
}
type OldRow = OldClickRow;

/** The dimensions of an old row by name: its columns are the dimensions' own, but for traffic_type. */
function oldDimensions(r: OldRow): ClickDimValues {
  const named: Record<ClickDim, string | null> = { ...r, trafficType: r.traffic_type } as never;
  return dimsOf(named);
}

export interface UpgradeOptions {
  log: (line: string) => void;
  chunk?: number;
  /** Today, for the links' day marks (the system clock unless a test sets one). */
  clock?: Clock;
  /** Called after each committed chunk with the clicks converted so far (tests stop here to resume). */
  afterChunk?: (converted: number) => void;
}

export interface UpgradeResult {
  /** Clicks converted by this run (a resumed run counts only its own). */
  converted: number;
  ms: number;
}

/** Whether the first click table is still there (a database written by a release before the raw clicks). */
export function hasOldClickTable(sqlite: Database): boolean {
  return sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'clicks'").get() !== null;
}

const count = (n: number) => n.toLocaleString('en-US');

/** Converts every old row and drops the old table; null (and no work) when there is no old table. */
export function upgradeClickStorage(sqlite: Database, options: UpgradeOptions): UpgradeResult | null {
  if (!hasOldClickTable(sqlite)) return null;
  const started = performance.now();
  const left = sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM clicks').get()!.n;
  const resumed = stateValue(sqlite, 'upgrading') !== null;
  // Before the first redirect of the new release nothing else writes the tail: what it holds was converted.
  const done = resumed ? sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM click_tail').get()!.n : 0;
  const total = done + left;
  if (left > 0)
    options.log(`upgrading click storage: ${count(done)} of ${count(total)} clicks${resumed ? ' (resumed)' : ''}`);
  const convert = prepareChunk(sqlite);
  let converted = 0;
  // The first chunk is always reported: it says the conversion is under way, and at what pace.
  let logged = Number.NEGATIVE_INFINITY;
  for (;;) {
    const n = convert(options.chunk ?? UPGRADE_CHUNK);
    if (n === 0) break;
    converted += n;
    options.afterChunk?.(converted);
    const now = performance.now();
    if (now - logged >= PROGRESS_MS || done + converted === total) {
      options.log(`upgrading click storage: ${count(done + converted)} of ${count(total)} clicks`);
      logged = now;
    }
  }
  const lastId = finish(sqlite, options.clock ?? systemClock);
  // The converted clicks are folded: seal them now, so no reader scans a tail of millions.
  sealBacklog(sqlite, lastId);
  const ms = performance.now() - started;
  if (left > 0)
    options.log(
      `click storage upgraded: ${count(converted)} clicks in ${(ms / 1000).toFixed(1)} s (${count(Math.round((converted * 1000) / ms))} clicks/s)`,
    );
  return { converted, ms };
}

/** Returns a function that converts the next `limit` old rows in one transaction (0 when none is left). */
function prepareChunk(sqlite: Database): (limit: number) => number {
  const values = new RollupValues(sqlite);
  values.refresh();
  const targets = new TargetIds(sqlite);
  const rollupStore = new RollupStore(sqlite, { cacheWorkspace: true });
  const linkCounters = prepareLinkCounters(sqlite);
  const variantCounters = prepareVariantCounters(sqlite);
  const select = sqlite.query<OldRow, [number]>(
    `SELECT c.id, c.link_id, c.timestamp, c.variant_id, c.variant_code, c.destination, c.params, c.country, c.city,
       c.device, c.os, c.browser, c.referrer, c.traffic_type, c.language, c.bot, c.visitor_hash, c.first_of_day
     FROM clicks c ORDER BY c.id LIMIT ?`,
  );
  const insert = prepareTailInsert(sqlite);
  const removeThrough = sqlite.prepare('DELETE FROM clicks WHERE id <= ?');
  const setState = sqlite.prepare(
    'INSERT INTO click_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
  );

  const chunk = sqlite.transaction((limit: number) => {
    const rows = select.all(limit);
    if (rows.length === 0) return 0;
    if (stateValue(sqlite, 'upgrading') === null) {
      // The old buckets and counters are replaced by sums of the converted clicks, chunk by chunk.
      clearRollups(sqlite);
      linkCounters.resetAll();
      variantCounters.resetAll();
      rollupStore.dropCache();
      setState.run('upgrading', 1);
    }
    const rollups = new RollupAccumulator(values);
    const totals = new Map<string, { humans: number; uniques: number; bots: number; last: number | null }>();
    const variantHumans = new Map<string, number>();
    // A row whose link is gone (one a cascade missed) is not converted: nothing could show it.
    const known = linkCounters.existing(rows.map((r) => r.link_id));
    for (const r of rows) {
      if (!known.has(r.link_id)) continue;
      const bot = r.bot === 1;
      const firstOfDay = !bot && r.first_of_day === 1;
      const click: RollupClick = {
        linkId: r.link_id,
        time: r.timestamp,
        bot,
        code: r.variant_code,
        variantId: r.variant_id,
        params: JSON.parse(r.params) as Record<string, string>,
        rule: null,
        ...oldDimensions(r),
      };
      // The same dictionary ids the writer stores (its eight dimensions first).
      const ids = valueIdsOf(values, click);
      insert.run(
        r.id,
        values.idOf('link', '', r.link_id),
        r.timestamp,
        targets.idOf(0, {
          linkId: r.link_id,
          variantId: r.variant_id,
          code: r.variant_code,
          destination: r.destination,
          params: r.params,
          rule: null,
        }),
        ...ids.slice(0, DIM_COUNT),
        // A row without a hash (never written by a release, but the column allowed it) is visitor 0.
        r.visitor_hash === null ? 0n : visitorBits(r.visitor_hash),
        (bot ? FLAG_BOT : 0) | (firstOfDay ? FLAG_FIRST_OF_DAY : 0),
      );
      rollups.addClick(click, firstOfDay);
      let t = totals.get(r.link_id);
      if (!t) {
        t = { humans: 0, uniques: 0, bots: 0, last: null };
        totals.set(r.link_id, t);
      }
      if (bot) t.bots++;
      else {
        t.humans++;
        if (firstOfDay) t.uniques++;
        t.last = t.last === null ? r.timestamp : Math.max(t.last, r.timestamp);
        if (r.variant_id !== null) variantHumans.set(r.variant_id, (variantHumans.get(r.variant_id) ?? 0) + 1);
      }
    }
    rollupStore.apply(rollups.buckets.values());
    for (const [id, t] of totals) linkCounters.bump(id, t.humans, t.uniques, t.bots, t.last);
    for (const [id, n] of variantHumans) variantCounters.bump(id, n);
    const last = rows[rows.length - 1]!.id;
    removeThrough.run(last);
    setState.run('last_id', Math.max(last, stateValue(sqlite, 'last_id') ?? 0));
    return rows.length;
  });

  return (limit) => {
    try {
      // IMMEDIATE: an operator command on the same file must not interleave a write.
      const n = chunk.immediate(limit);
      values.commit();
      targets.commit();
      return n;
    } catch (err) {
      values.rollback();
      targets.rollback();
      rollupStore.dropCache();
      throw err;
    }
  };
}

function stateValue(sqlite: Database, name: string): number | null {
  return (
    sqlite.query<{ value: number }, [string]>('SELECT value FROM click_state WHERE name = ?').get(name)?.value ?? null
  );
}

/**
 * Every old row is converted: the ids the old table ever assigned stay used (AUTOINCREMENT's
 * high-water mark, which counts rows deleted with their link), every converted click counts as
 * folded (the rollups and counters hold them), and the old table goes.
 */
function finish(sqlite: Database, clock: Clock): number {
  return sqlite
    .transaction(() => {
      const seq = sqlite.query<{ seq: number }, []>("SELECT seq FROM sqlite_sequence WHERE name = 'clicks'").get();
      const lastId = Math.max(seq?.seq ?? 0, stateValue(sqlite, 'last_id') ?? 0);
      const set = sqlite.prepare(
        'INSERT INTO click_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = max(value, excluded.value)',
      );
      if (lastId > 0) set.run('last_id', lastId);
      if (stateValue(sqlite, 'upgrading') !== null) {
        set.run('folded_through', lastId);
        // The conversion wrote both grains whole: every link's day buckets can be trusted up to today.
        markAllLinkDays(sqlite, utcDay(clock.now()) * DAY_MS);
        sqlite.query("DELETE FROM click_state WHERE name = 'upgrading'").run();
      }
      sqlite.exec('DROP TABLE clicks');
      return lastId;
    })
    .immediate();
}
