/**
 * What the statistics, the clicks list and the export read, in the analytics module's words:
 * rollup buckets of a scope (a link's dictionary id, or WORKSPACE), the names of dictionary ids,
 * pages of a link's raw clicks. One implementation per engine beside this file; the tables
 * themselves stay the rollups' and the clicks' modules' (their public faces read them).
 */
import type { ClickKey, ListedClick } from '../clicks/public';
import type { BucketData, BucketRow, Grain, RollupDim, ScopedBucketData } from '../rollups/public';

/** A dictionary id's name: the dimension, its key (a city's country, a param's name) and the value. */
export interface ValueName {
  dim: RollupDim;
  key: string;
  value: string;
}

/** The dictionary as readers see it, up to date with every bucket read before it was asked for. */
export interface ValueNames {
  nameOf(id: number): ValueName | undefined;
  /** One past the largest id known: sizes the typed arrays that sum buckets. */
  readonly size: number;
}

/** One grain's buckets of a scope with start in [from, toExclusive). */
export interface BucketRange {
  grain: Grain;
  from: number;
  toExclusive: number;
}

export interface AnalyticsStore {
  /** A link's scope (its dictionary id), or null when no click of it was ever written. */
  linkScope(linkId: string): Promise<number | null>;
  /** Start of the first UTC day the scope has a click in, or null. */
  firstDay(scope: number): Promise<number | null>;
  /**
   * A link scope's days before this instant are whole in its day buckets; from it on they are
   * read from its hour buckets (the day marks: rollups/sqlite/link-days.ts,
   * rollups/postgres/link-days.ts). Infinity where day buckets are always whole (the workspace).
   */
  daysBefore(scope: number): Promise<number>;
  /** The buckets of each range (bot buckets only when `bots`), and the bot hits of those ranges whatever `bots` says. */
  buckets(scope: number, ranges: BucketRange[], bots: boolean): Promise<{ rows: BucketData[]; botHits: number }>;
  /** Totals of the scope's hour buckets with start in [from, toExclusive), both bot flags. */
  hourTotals(scope: number, from: number, toExclusive: number): Promise<BucketRow[]>;
  /** The dictionary's names, knowing every id of the buckets read before this call but those knowValues names. */
  valueNames(): Promise<ValueNames>;
  /**
   * Makes the names of these ids (of buckets read before valueNames) known too: on PostgreSQL an
   * id another node was given before a newer one but committed after it may not be read by
   * valueNames. Nothing to do on SQLite (one writer gives ids in commit order).
   */
  knowValues(ids: readonly number[]): Promise<void>;
  /** The scopes of these links that were ever clicked (link id -> scope), in one read. */
  linkScopes(linkIds: readonly string[]): Promise<Map<string, number>>;
  /** daysBefore of each of these link scopes, in one read (0 for a scope without a mark). */
  daysBeforeOf(scopes: readonly number[]): Promise<Map<number, number>>;
  /** The buckets of these scopes in one range, bot buckets included, each with its scope: one read for all. */
  scopesBuckets(scopes: readonly number[], range: BucketRange): Promise<ScopedBucketData[]>;
  /** Totals of these scopes' hour buckets with start in [from, toExclusive), summed per (hour, bot). */
  scopesHourTotals(scopes: readonly number[], from: number, toExclusive: number): Promise<BucketRow[]>;
  /** Start of the first UTC day any of these scopes has a click in, or null. */
  scopesFirstDay(scopes: readonly number[]): Promise<number | null>;
  /** Up to `limit` clicks of a link below `before` (newest first) and not before `from`. */
  clickPage(linkId: string, from: number, before: ClickKey, bots: boolean, limit: number): Promise<ListedClick[]>;
  /** The imported daily counts kept of these links (day start ms, clicks), each link's oldest first; links with none absent. */
  importedDays(linkIds: readonly string[]): Promise<Map<string, { start: number; clicks: number }[]>>;
  /** The newest click id given out: an export's snapshot (clicks written later have higher ids). */
  lastClickId(): Promise<number>;
}

/** The database's size on disk, for the metrics. */
export interface StorageBytes {
  /** The database: the SQLite file, or the PostgreSQL database (pg_database_size). */
  database: number;
  /** SQLite's write-ahead log beside the file; 0 on PostgreSQL (its WAL is the server's, shared by its databases). */
  wal: number;
}
