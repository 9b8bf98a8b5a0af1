/**
 * The hosts of the domains a click batch's links are on, for the records of its `clicks` events
 * (the click record's `domain`). Read through the domains module's store on the writer's own
 * connection, whole (domains are few), and kept: a domain's host never changes while this
 * process runs (only a start names the default domain), so the domains are read again only when
 * a batch names one not seen yet.
 */
import type { Database } from 'bun:sqlite';
import type { Pg } from '../../db/postgres/client';
import { listDomainsPostgres, listDomainsSqlite } from '../domains/public';

class HostCache {
  private hosts = new Map<number, string>();

  missing(ids: readonly number[]): boolean {
    return ids.some((id) => !this.hosts.has(id));
  }

  replace(rows: readonly { id: number; host: string }[]): void {
    this.hosts = new Map(rows.map((r) => [r.id, r.host]));
  }

  get map(): ReadonlyMap<number, string> {
    return this.hosts;
  }
}

/** SQLite: inside the batch's (synchronous) transaction. */
export function sqliteDomainHosts(sqlite: Database): (ids: readonly number[]) => ReadonlyMap<number, string> {
  const cache = new HostCache();
  return (ids) => {
    if (cache.missing(ids)) cache.replace(listDomainsSqlite(sqlite));
    return cache.map;
  };
}

/** PostgreSQL: read inside the batch's transaction, so a domain committed before it is seen. */
export function postgresDomainHosts(): (tx: Pg, ids: readonly number[]) => Promise<ReadonlyMap<number, string>> {
  const cache = new HostCache();
  return async (tx, ids) => {
    if (cache.missing(ids)) {
      cache.replace(await listDomainsPostgres(tx));
    }
    return cache.map;
  };
}
