/**
 * What the history writers of both engines share: a source's visit in the clicks module's
 * words, a source's day as the start of its UTC day, and the options they are opened with.
 */
import type { Clock } from '../../../lib/clock';
import { DAY_MS } from '../../../lib/time';
import type { ImportedVisit, ImportPolicy } from '../../clicks/public';
import type { HistoryPosition } from '../history';
import type { SourceDay, SourceName, SourceVisit } from '../source';

export interface HistoryOptions {
  /** What a click may keep (SLINK_REFERRER, SLINK_GEO) and our own hosts. */
  policy: ImportPolicy;
  clock: Clock;
  /** SLINK_RETENTION_DAYS (PostgreSQL's writer takes a retention step after a batch, as any writer). */
  retentionDays: number;
  /**
   * SQLite: has this process's click writer take the queued history and fold it (the server's
   * and the app's: ClickFlusher.takeImports). Absent (`slink import`): the server's writer takes
   * it, at once if one runs on the file, else at its next start.
   */
  take?: () => Promise<number>;
  /**
   * Told, once counted, of the human clicks the history added to links' stored clickCount: the
   * process's slug index adds them to its counts, so a click limit counts imported clicks. On
   * SQLite only for a total (stored at once): what the writer takes, its take tells the slug
   * index of (ClickFlusher.onImported), whichever process queued it.
   */
  counted?: (humans: ReadonlyMap<string, number>) => void;
}

/** One call of HistoryWriter.visits. */
export interface VisitsCall {
  linkId: string;
  source: SourceName;
  visits: readonly SourceVisit[];
  /** Saved in the transaction that stores these visits. */
  position?: HistoryPosition;
}

/** Visits per transaction (and per queued row on SQLite). */
export const VISITS_PER_WRITE = 5000;

/** A source's visit as the clicks module takes it; null for one with no usable time. */
export function importedVisit(v: SourceVisit): ImportedVisit | null {
  if (!Number.isFinite(v.at) || v.at < 0) return null;
  return {
    time: Math.trunc(v.at),
    referrer: v.referrer,
    userAgent: v.userAgent,
    country: v.country,
    city: v.city,
    bot: v.bot,
    device: v.device,
    os: v.os,
    browser: v.browser,
    language: v.language ?? null,
    variantCode: v.variantCode ?? null,
    trafficType: v.trafficType ?? null,
    destination: v.destination ?? null,
    params: v.params ?? null,
    firstVisit: v.firstVisit === true,
  };
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A source's day as its UTC start (ms) and clicks; null for a malformed day or count (never guessed). */
export function importedDay(d: SourceDay): { start: number; clicks: number } | null {
  const m = DAY.exec(d.day);
  if (m === null || !Number.isSafeInteger(d.clicks) || d.clicks < 0) return null;
  const start = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  // Date.UTC rolls 2026-02-31 over into March: such a day is not one.
  if (new Date(start).toISOString().slice(0, 10) !== d.day || start % DAY_MS !== 0) return null;
  return { start, clicks: d.clicks };
}

/** A source's days as stored: those with a usable day and at least one click, and their sum. */
export function keptDays(list: readonly SourceDay[]): { kept: { start: number; clicks: number }[]; clicks: number } {
  const kept = list.flatMap((d) => importedDay(d) ?? []).filter((d) => d.clicks > 0);
  return { kept, clicks: kept.reduce((n, d) => n + d.clicks, 0) };
}

/** HistoryWriter.visits over the engine's GroupedWrites: each call joins the group being written. */
export function groupedVisits(
  grouped: GroupedWrites<VisitsCall, number>,
): (linkId: string, source: SourceName, list: readonly SourceVisit[], position?: HistoryPosition) => Promise<number> {
  return (linkId, source, list, position) => grouped.add({ linkId, source, visits: list, position });
}

/** Human clicks added per link, until they are told to `counted`. */
export class AddedHumans {
  private added = new Map<string, number>();

  add(linkId: string, humans: number): void {
    if (humans !== 0) this.added.set(linkId, (this.added.get(linkId) ?? 0) + humans);
  }

  /** What was added since the last take. */
  take(): Map<string, number> {
    const out = this.added;
    this.added = new Map();
    return out;
  }
}

/**
 * Calls made side by side (an engine importing several links at once) written together: each
 * call's items join the group being built, which is written in one go once it holds `max` or
 * at the next turn of the event loop, and each call resolves with its own result once the
 * group's write has (durable then). One group is written at a time, in order.
 */
export class GroupedWrites<T, R> {
  private items: T[] = [];
  private waiting: { resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  private size = 0;
  private scheduled = false;
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly sizeOf: (item: T) => number,
    private readonly max: number,
  ) {}

  add(item: T): Promise<R> {
    const { promise, resolve, reject } = Promise.withResolvers<R>();
    this.items.push(item);
    this.waiting.push({ resolve, reject });
    this.size += this.sizeOf(item);
    if (this.size >= this.max) this.writeGroup();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.writeGroup());
    }
    return promise;
  }

  /** Resolves once every group handed over so far is written (or failed). */
  idle(): Promise<void> {
    return this.last.then(
      () => {},
      () => {},
    );
  }

  private writeGroup(): void {
    this.scheduled = false;
    if (this.items.length === 0) return;
    const items = this.items;
    const waiting = this.waiting;
    this.items = [];
    this.waiting = [];
    this.size = 0;
    const run = this.last
      .catch(() => {})
      .then(() => this.write(items))
      .then(
        (results) => {
          for (let i = 0; i < waiting.length; i++) waiting[i]!.resolve(results[i]!);
        },
        (err) => {
          for (const w of waiting) w.reject(err);
        },
      );
    this.last = run;
  }
}
