/**
 * Every domain's facts in memory: short URLs are built from a link's domain origin, and a
 * request's Host is turned into a domain id, without a read. The domains are few (tens), read
 * whole at start and again after every change (this process's own writes, and other nodes'
 * through the change feed: redirect/link-follower.ts).
 */
import type { DomainRow } from './table';

/** What the redirect and the services need of a domain (its row but the counters of its visits). */
export type DomainFacts = Omit<DomainRow, 'lastSeenAt' | 'createdAt'>;

/** FNV-1a over UTF-16 code units, of `text` from `start` to `end`. */
function hashRange(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export class DomainDirectory {
  private byIdMap = new Map<number, DomainFacts>();
  private byHostMap = new Map<string, DomainFacts>();
  /** Host hash -> domains of that hash (almost always one): a request's host found with no string made. */
  private byHostHash = new Map<number, DomainFacts[]>();
  private defaultFacts: DomainFacts | null = null;
  private list: DomainFacts[] = [];
  /**
   * When a request last arrived for each domain id (0: none since the start), and the value last
   * written: by id, kept across `replace`, so noting a visit is one compare and one store.
   */
  private seenAt = new Float64Array(16);
  private writtenAt = new Float64Array(16);
  /** The last read of `refresh`: each starts after the one before has replaced, so none lands stale. */
  private refreshing: Promise<void> = Promise.resolve();

  /** Puts these domains in place of the ones known (they are every domain). */
  replace(rows: readonly DomainFacts[]): void {
    const byId = new Map<number, DomainFacts>();
    const byHost = new Map<string, DomainFacts>();
    const byHostHash = new Map<number, DomainFacts[]>();
    let defaultFacts: DomainFacts | null = null;
    const list: DomainFacts[] = [];
    for (const row of rows) {
      const facts: DomainFacts = {
        id: row.id,
        host: row.host,
        origin: row.origin,
        isDefault: row.isDefault,
        rootUrl: row.rootUrl,
        notFoundUrl: row.notFoundUrl,
        expiredUrl: row.expiredUrl,
        upstream: row.upstream,
        appleAppSiteAssociation: row.appleAppSiteAssociation,
        assetLinks: row.assetLinks,
      };
      list.push(facts);
      byId.set(facts.id, facts);
      byHost.set(facts.host, facts);
      const hash = hashRange(facts.host, 0, facts.host.length);
      const same = byHostHash.get(hash);
      if (same) same.push(facts);
      else byHostHash.set(hash, [facts]);
      if (facts.isDefault) defaultFacts = facts;
    }
    this.makeRoomFor(list);
    this.byIdMap = byId;
    this.byHostMap = byHost;
    this.byHostHash = byHostHash;
    this.list = list;
    this.defaultFacts = defaultFacts;
  }

  /**
   * Reads every domain (`read`: the store's list) and puts them in place, after any read begun
   * before has: a slower, older read never overwrites a newer one (this process's writes and the
   * change feed's reloads both come here).
   */
  refresh(read: () => Promise<readonly DomainFacts[]>): Promise<void> {
    const next = this.refreshing.then(async () => this.replace(await read()));
    this.refreshing = next.catch(() => {});
    return next;
  }

  /** Grows the seen times (rarely: ids are small and few) so that every id has its slot. */
  private makeRoomFor(list: readonly DomainFacts[]): void {
    let top = this.seenAt.length;
    for (const facts of list) while (facts.id >= top) top *= 2;
    if (top === this.seenAt.length) return;
    const seenAt = new Float64Array(top);
    seenAt.set(this.seenAt);
    const writtenAt = new Float64Array(top);
    writtenAt.set(this.writtenAt);
    this.seenAt = seenAt;
    this.writtenAt = writtenAt;
  }

  /**
   * A request arrived for the domain of `id` at `now` (the redirect, on every request whose Host
   * is a domain's): no allocation, O(1). Written to the database at most once a minute (seen.ts).
   */
  noteSeen(id: number, now: number): void {
    const seenAt = this.seenAt;
    if (id < seenAt.length && now > seenAt[id]!) seenAt[id] = now;
  }

  /** When this process last saw a request for the domain, or null (none since the start). */
  seenSince(id: number): number | null {
    const at = id < this.seenAt.length ? this.seenAt[id]! : 0;
    return at > 0 ? at : null;
  }

  /** The domains whose time moved since it was last written (seenWritten), with that time. */
  unwrittenSeen(): { id: number; at: number }[] {
    const out: { id: number; at: number }[] = [];
    for (let id = 0; id < this.seenAt.length; id++)
      if (this.seenAt[id]! > this.writtenAt[id]!) out.push({ id, at: this.seenAt[id]! });
    return out;
  }

  /** These times are in the database now. */
  seenWritten(seen: readonly { id: number; at: number }[]): void {
    for (const { id, at } of seen) if (at > this.writtenAt[id]!) this.writtenAt[id] = at;
  }

  /** Every domain, oldest first. */
  all(): readonly DomainFacts[] {
    return this.list;
  }

  get size(): number {
    return this.list.length;
  }

  /** The default domain (SLINK_SHORT_HOST's); throws before the domains were read (a bug). */
  get default(): DomainFacts {
    if (this.defaultFacts === null) throw new Error('the domains were not read yet');
    return this.defaultFacts;
  }

  byId(id: number): DomainFacts | undefined {
    return this.byIdMap.get(id);
  }

  /** The domain of a host name (lowercase, punycode, no port). */
  byHost(host: string): DomainFacts | undefined {
    return this.byHostMap.get(host);
  }

  /** What short URLs of links on this domain start with; the default domain's for an id unknown here. */
  originOf(id: number): string {
    return (this.byIdMap.get(id) ?? this.default).origin;
  }

  /**
   * The domain whose host is `url` from `start` to `end` (a request URL's host name, as Bun gives
   * it: lowercase; http/client.ts hostBoundsOf), or undefined when it is none of them. Allocates
   * nothing: the redirect calls it on every request.
   */
  ofHost(url: string, start: number, end: number): DomainFacts | undefined {
    // No host named (HTTP/1.0 without Host): no domain, whatever a domain's row says.
    if (end === start) return undefined;
    const same = this.byHostHash.get(hashRange(url, start, end));
    if (same === undefined) return undefined;
    for (const facts of same) if (facts.host.length === end - start && url.startsWith(facts.host, start)) return facts;
    return undefined;
  }
}
