/**
 * Imported history on SQLite (table.ts click_imports): queued by an import on any connection,
 * taken by the one click writer (store.ts takeImports) through its own path, so its in-memory
 * state (the sums, the last id, the fold's watermark, the workspace buckets it keeps decoded)
 * stays the truth. The server's writer takes the queue on a timer and when its own process's
 * import asks (ClickSink.takeImports); `slink import` beside a running server only queues.
 *
 * A row of visits is deleted in the transaction that appends its raw clicks, so a crash leaves
 * it queued or written, never both; a row of daily counts goes into the writer's sums and is
 * deleted by the fold that counts them (a crash before that leaves it queued), which keeps its
 * days in imported_days.
 */
import type { Database, Statement } from 'bun:sqlite';
import { utcDay } from '../../../lib/time';
import type { EnrichedClick } from '../enrich/enrich';
import type { TrafficType } from '../enrich/traffic';

export const KIND_VISITS = 0;
export const KIND_DAYS = 1;

/**
 * One visit as queued: time, bot (0: a human, 1: a bot, 2: a human's first visit of its day as
 * the source recorded it), country, city, device, os, browser, referrer host,
 * traffic type; then, when the source kept them, language, the destination and params JSON the
 * click itself was sent with (absent or null: the row's), the variant code it named and the id
 * of the variant it went through.
 */
type QueuedVisit = [
  number,
  number,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  string,
  (string | null)?,
  (string | null)?,
  (string | null)?,
  (string | null)?,
  (string | null)?,
];

interface QueuedVisits {
  /** The link's destination and params when queued (the click's target). */
  d: string;
  p: string;
  v: QueuedVisit[];
}

/** One UTC day's count as queued: the day's start (epoch ms) and its clicks. */
type QueuedDay = [number, number];

/** Queues a link's enriched imported clicks (importedClick) in one row; run inside the caller's transaction. */
export function queueImportedVisits(sqlite: Database, linkId: string, clicks: readonly EnrichedClick[]): void {
  if (clicks.length === 0) return;
  const first = clicks[0]!;
  const data: QueuedVisits = {
    d: first.destination,
    p: first.paramsJson,
    v: clicks.map((c): QueuedVisit => {
      const base: QueuedVisit = [
        c.time,
        c.bot ? 1 : c.firstVisit === true ? 2 : 0,
        c.country,
        c.city,
        c.device,
        c.os,
        c.browser,
        c.referrer,
        c.trafficType,
      ];
      if (
        c.language === null &&
        c.code === null &&
        c.destination === first.destination &&
        c.paramsJson === first.paramsJson
      )
        return base;
      base.push(
        c.language,
        c.destination === first.destination ? null : c.destination,
        c.paramsJson === first.paramsJson ? null : c.paramsJson,
      );
      if (c.code !== null) base.push(c.code, c.variantId);
      return base;
    }),
  };
  sqlite
    .query('INSERT INTO click_imports (link_id, kind, count, data) VALUES (?, ?, ?, ?)')
    .run(linkId, KIND_VISITS, clicks.length, JSON.stringify(data));
}

/** Queues a link's daily counts (day start in epoch ms, clicks) in one row; inside the caller's transaction. */
export function queueImportedDays(
  sqlite: Database,
  linkId: string,
  days: readonly { start: number; clicks: number }[],
): void {
  const kept = days.filter((d) => d.clicks > 0);
  if (kept.length === 0) return;
  const data: QueuedDay[] = kept.map((d) => [d.start, d.clicks]);
  const count = kept.reduce((n, d) => n + d.clicks, 0);
  sqlite
    .query('INSERT INTO click_imports (link_id, kind, count, data) VALUES (?, ?, ?, ?)')
    .run(linkId, KIND_DAYS, count, JSON.stringify(data));
}

/** Whether anything waits in the queue (an import beside the server waits for it to empty). */
export function importsQueued(sqlite: Database): number {
  return sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM click_imports').get()!.n;
}

export interface QueuedRow {
  id: number;
  linkId: string;
  kind: number;
  count: number;
  data: string;
}

/** The writer's side of the queue: rows in order, read and deleted. */
export class ImportQueue {
  private readonly next: Statement<QueuedRow, [number, number]>;
  private readonly remove: Statement;
  private readonly keep: Statement;

  constructor(sqlite: Database) {
    this.next = sqlite.prepare(
      'SELECT id, link_id AS linkId, kind, count, data FROM click_imports WHERE id > ? ORDER BY id LIMIT ?',
    );
    this.remove = sqlite.prepare('DELETE FROM click_imports WHERE id = ?');
    this.keep = sqlite.prepare(
      `INSERT INTO imported_days (link_id, start, clicks)
       SELECT q.link_id, json_extract(d.value, '$[0]'), json_extract(d.value, '$[1]')
       FROM click_imports q, json_each(q.data) d WHERE q.id = ?
       ON CONFLICT (link_id, start) DO UPDATE SET clicks = clicks + excluded.clicks`,
    );
  }

  /** Up to `limit` rows after `after`, oldest first. */
  after(after: number, limit: number): QueuedRow[] {
    return this.next.all(after, limit);
  }

  /**
   * Rows of daily counts counted now: their days kept in imported_days (a rebuild from the raw
   * clicks adds them back) and the rows deleted, inside the fold that counts them.
   */
  counted(ids: readonly number[]): void {
    for (const id of ids) this.keep.run(id);
    this.delete(ids);
  }

  /** Deletes rows: inside the transaction that writes what they held. */
  delete(ids: readonly number[]): void {
    for (const id of ids) this.remove.run(id);
  }
}

const paramsCache = new Map<string, Readonly<Record<string, string>>>();

function paramsOf(json: string): Readonly<Record<string, string>> {
  let params = paramsCache.get(json);
  if (params === undefined) {
    params = Object.freeze(JSON.parse(json) as Record<string, string>);
    if (paramsCache.size >= 1000) paramsCache.clear();
    paramsCache.set(json, params);
  }
  return params;
}

/** A row of visits as the clicks they become (the writer appends them). */
export function queuedVisits(row: QueuedRow): EnrichedClick[] {
  const data = JSON.parse(row.data) as QueuedVisits;
  const params = paramsOf(data.p);
  return data.v.map(
    ([time, bot, country, city, device, os, browser, referrer, traffic, language, d, p, code, variantId]) => ({
      serial: 0,
      linkId: row.linkId,
      variantId: variantId ?? null,
      code: code ?? null,
      rule: null,
      time,
      day: utcDay(time),
      bot: bot === 1,
      destination: d ?? data.d,
      params: p == null ? params : paramsOf(p),
      paramsJson: p ?? data.p,
      country,
      city,
      device,
      os,
      browser,
      referrer,
      trafficType: traffic as TrafficType,
      language: language ?? null,
      visitorHash: '',
      ...(bot === 2 ? { firstVisit: true as const } : {}),
    }),
  );
}

/** A row of daily counts: each day's start and clicks. */
export function queuedDays(row: QueuedRow): { start: number; clicks: number }[] {
  return (JSON.parse(row.data) as QueuedDay[]).map(([start, clicks]) => ({ start, clicks }));
}
