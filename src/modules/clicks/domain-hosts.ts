/**
 * The hosts of the domains a click batch's links are on, for the records of its `clicks` events
 * (the click record's `domain`). Read through the domains module's store on the writer's own
 * connection, whole (domains are few), and kept: a domain's host never changes while this
 * process runs (only a start names the default domain), so the domains are read again only when
 * a batch names one not seen yet.
 */
import type { Database } from 'bun:sqlite';
import type { Pg } from '../../db/postgres/client';
import { createPostgresDomainStore, createSqliteDomainStore, type DomainStore } from '../domains/public';
import { domainLinksPostgres, domainLinksSqlite } from '../links/public';

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

/**
 * SQLite: inside the batch's (synchronous) transaction. The SQLite domain store reads with
 * bun:sqlite's synchronous statements, so its answer is settled when list() returns and is taken
 * at once (Bun.peek); a store that ever waited would be a bug here, and is thrown as one.
 */
export function sqliteDomainHosts(sqlite: Database): (ids: readonly number[]) => ReadonlyMap<number, string> {
  const store: DomainStore = createSqliteDomainStore(sqlite, domainLinksSqlite);
  const cache = new HostCache();
  return (ids) => {
    if (cache.missing(ids)) {
      const listed = Bun.peek(store.list());
      if (listed instanceof Promise) throw new Error('the SQLite domain store answered asynchronously');
      cache.replace(listed);
    }
    return cache.map;
  };
}

/** PostgreSQL: read inside the batch's transaction, so a domain committed before it is seen. */
export function postgresDomainHosts(): (tx: Pg, ids: readonly number[]) => Promise<ReadonlyMap<number, string>> {
  const cache = new HostCache();
  return async (tx, ids) => {
    if (cache.missing(ids)) {
      // Only list() is used: the store's writes, and their announcement, are not.
      const store = createPostgresDomainStore(tx, () => Promise.resolve(), domainLinksPostgres);
      cache.replace(await store.list());
    }
    return cache.map;
  };
}
