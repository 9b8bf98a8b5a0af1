/**
 * Where an import's history goes: the engine hands each imported link's history to this
 * writer, which stores it on either engine as what it is (never invented):
 * - visits become clicks, with the fields the source has, enriched as a redirect's click is
 *   where the source gave the raw input (a user agent parsed, bots classified from it);
 * - daily counts become rollup clicks of that day: counted in clickCount, the series and the
 *   totals, but adding no uniques and no rows of the clicks list;
 * - a total sets the link's starting clickCount (and another Slink's counts beyond its visits
 *   and days are added to its counters once).
 * The engine keeps the position (the newest visit or day stored) so a re-run adds only newer ones:
 * given with a call, it is saved in the transaction that stores the call's history, so a process
 * killed at any instant has stored both or neither (a re-run stores nothing twice).
 */
import type { CountedOnly, SourceDay, SourceName, SourceVisit } from './source';

/** A source link's history position (its mapping in import_links) as a call moves it on. */
export interface HistoryPosition {
  identity: string;
  sourceId: string;
  /** The newest visit now stored (epoch ms), with visitAtCount: the saved one is the later of the two. */
  visitAt?: number;
  /** How many visits at exactly visitAt are now stored (1 when not given). */
  visitAtCount?: number;
  /** The newest day now stored (YYYY-MM-DD). */
  day?: string;
  /** The source's total is now set. */
  totalSet?: boolean;
  /** Another Slink's own counts of the link now taken (ImportLinkRow.sourceCounts). */
  sourceCounts?: CountedOnly;
  /**
   * The run storing it: on PostgreSQL the clicks the call stores are added to that run's count
   * in the same transaction, so a node killed before its page is saved leaves them counted for
   * the node that takes the run over (which finds them stored and stores nothing again).
   */
  runId?: string;
}

export interface HistoryWriter {
  /** Stores a batch of a link's visits, oldest first; resolves once they are durable. Returns how many were stored. */
  visits(
    linkId: string,
    source: SourceName,
    visits: readonly SourceVisit[],
    position?: HistoryPosition,
  ): Promise<number>;
  /** Stores a link's daily counts, oldest first; resolves once durable. Returns the clicks added. */
  days(linkId: string, source: SourceName, days: readonly SourceDay[], position?: HistoryPosition): Promise<number>;
  /** Sets a link's starting clickCount to the source's total (a link made by this import). */
  total(linkId: string, source: SourceName, clicks: number, position?: HistoryPosition): Promise<void>;
  /**
   * Adds what a link counts beyond its visits and days (SourceLink.countedOnly) to its counters,
   * whatever history it has (a total is refused beside visits, this is not): the caller sets it
   * once, by the position's totalSet saved in the same transaction. Returns the clicks added
   * (humans and bots).
   */
  countedOnly(linkId: string, source: SourceName, counts: CountedOnly, position?: HistoryPosition): Promise<number>;
  /** Notes a link this import made that carries no history (its `imported` says so). */
  none?(linkId: string, source: SourceName): Promise<void>;
  /**
   * Resolves once everything handed over so far is counted in clickCount and the statistics
   * (call it at the end of a run). What visits() and days() resolved is durable already; it is
   * counted soon after by the click writer: on SQLite the server's (in `slink import` beside no
   * running server: at its next start, and flush() resolves at once), on PostgreSQL the next fold.
   */
  flush?(): Promise<void>;
}
