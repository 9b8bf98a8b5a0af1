/**
 * The analytics reads on PostgreSQL: the tables as the PostgreSQL click writer writes them
 * (clicks/postgres/store.ts, rollups/postgres/buckets.ts), through the modules' public reads.
 * A link's days from its day mark on are read from its hour buckets, as on SQLite
 * (rollups/postgres/link-days.ts). The dictionary's names are this node's own copy, read as new ids appear.
 */
import { num, type Pg } from '../../../db/postgres/client';
import { importedDaysOfPg, lastClickIdPg, readClickPagePg } from '../../clicks/public';
import {
  countBotHitsPg,
  firstBucketStartPg,
  linkDaysBeforeManyPg,
  linkDaysBeforePg,
  linkValueIdPg,
  linkValueIdsPg,
  PgValues,
  readBucketDataPg,
  readBucketTotalsPg,
  readScopesBucketDataPg,
  readScopesHourTotalsPg,
  scopesFirstBucketStartPg,
} from '../../rollups/public';
import type { AnalyticsStore, StorageBytes } from '../store';

/** The reader's dictionary of a pool (one per pool: the export reads names with it too). */
const dictionaries = new WeakMap<Pg, PgValues>();

export function readerValues(sql: Pg): PgValues {
  let values = dictionaries.get(sql);
  if (values === undefined) {
    values = new PgValues(sql);
    dictionaries.set(sql, values);
  }
  return values;
}

export function createPostgresAnalyticsStore(sql: Pg): AnalyticsStore {
  const values = readerValues(sql);
  return {
    linkScope: (linkId) => linkValueIdPg(sql, linkId),
    firstDay: (scope) => firstBucketStartPg(sql, scope),
    daysBefore: (scope) => linkDaysBeforePg(sql, scope),
    async buckets(scope, ranges, bots) {
      const rows = [];
      let botHits = 0;
      for (const r of ranges) {
        rows.push(...(await readBucketDataPg(sql, scope, r.grain, r.from, r.toExclusive, bots)));
        if (!bots) botHits += await countBotHitsPg(sql, scope, r.grain, r.from, r.toExclusive);
      }
      if (bots) for (const r of rows) if (r.bot === 1) botHits += r.clicks;
      return { rows, botHits };
    },
    hourTotals: (scope, from, toExclusive) => readBucketTotalsPg(sql, scope, 'hour', from, toExclusive),
    async valueNames() {
      await values.refresh();
      return values;
    },
    async knowValues(ids) {
      const unknown = ids.filter((id) => values.nameOf(id) === undefined);
      if (unknown.length > 0) await values.know(unknown);
    },
    linkScopes: (linkIds) => linkValueIdsPg(sql, linkIds),
    async daysBeforeOf(scopes) {
      const marks = await linkDaysBeforeManyPg(sql, scopes);
      return new Map(scopes.map((s) => [s, marks.get(s) ?? 0]));
    },
    scopesBuckets: (scopes, r) => readScopesBucketDataPg(sql, scopes, r.grain, r.from, r.toExclusive),
    scopesHourTotals: (scopes, from, toExclusive) => readScopesHourTotalsPg(sql, scopes, from, toExclusive),
    scopesFirstDay: (scopes) => scopesFirstBucketStartPg(sql, scopes),
    clickPage: (linkId, from, before, bots, limit) => readClickPagePg(sql, values, linkId, from, before, bots, limit),
    importedDays: (linkIds) => importedDaysOfPg(sql, linkIds),
    lastClickId: () => lastClickIdPg(sql),
  };
}

/** The database's size (tables, indexes and TOAST of every table in it). */
export async function postgresStorageBytes(sql: Pg): Promise<StorageBytes> {
  const [r] = await sql`SELECT pg_database_size(current_database()) AS bytes`;
  return { database: num(r.bytes), wal: 0 };
}
