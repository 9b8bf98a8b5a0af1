/** A run's row as the PostgreSQL import stores read it, and the hold on its source (store.ts, takeover.ts). */

import { num, numOrNull, type Pg } from '../../../db/postgres/client';
import { IMPORT_LOCK_CLASS } from '../../../db/postgres/locks';
import type { ImportRunRow, RunClaim } from '../store';

export type Int8 = string | number;
export type Reserved = Awaited<ReturnType<Pg['reserve']>>;

export function toRun(r: Record<string, unknown>): ImportRunRow {
  return {
    id: r.id as string,
    source: r.source as string,
    url: r.url as string | null,
    identity: r.identity as string,
    options: JSON.parse(r.options as string),
    status: r.status as ImportRunRow['status'],
    linksSeen: num(r.links_seen as Int8),
    linksCreated: num(r.links_created as Int8),
    linksSkipped: num(r.links_skipped as Int8),
    linksExisting: num(r.links_existing as Int8),
    linksFailed: num(r.links_failed as Int8),
    clicksImported: num(r.clicks_imported as Int8),
    errors: JSON.parse(r.errors as string),
    cursor: r.cursor as string | null,
    cancelRequested: r.cancel_requested as boolean,
    node: r.node as string,
    pid: num(r.pid as Int8),
    instance: r.instance as string,
    accountId: r.account_id as string | null,
    via: r.via as string,
    startedAt: num(r.started_at as Int8),
    endedAt: numOrNull(r.ended_at as Int8 | null),
    fileHead: (r.file_head as string | null) ?? null,
  };
}

/**
 * The hold on a source identity of the session advisory lock taken on `conn` (reserved for the
 * run): released with the lock, or by PostgreSQL when the node dies with its connection.
 */
export function claimOn(conn: Reserved, identity: string): RunClaim {
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      try {
        await conn`SELECT pg_advisory_unlock(${IMPORT_LOCK_CLASS}, hashtext(${identity}))`;
      } finally {
        conn.release();
      }
    },
  };
}
