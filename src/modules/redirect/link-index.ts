/**
 * Every link's redirect facts in memory, by (domain id, slug): the hot path answers without touching the
 * database. Every link, tag or variant write goes through the LinkWriter (links/writer.ts), which
 * awaits `refreshMany` with the links it touched once the write has committed, before it
 * answers: the index is coherent with every write. The facts live in a LinkTable (link-table.ts: typed arrays and an arena of blocks, a
 * slot per link); a link keeps its slot, and so its live counters, across refreshes: buffered
 * clicks count against it, and the click limit reads it.
 *
 * At start the server loads the links in the background (`loadInBackground`), a page per
 * event-loop turn, so it answers its first redirect in milliseconds rather than after reading
 * every link (~1 s at 100,000); until the load ends, a slug not in memory yet is read from the
 * database on the spot and kept (`lookup`).
 *
 * Reads are asynchronous on PostgreSQL, so every read-then-apply (a page of the load, a refresh,
 * a miss) runs as one unit, in order, on a queue: a page read before a link was deleted can
 * never put it back after the delete's refresh removed it.
 */
import { nextTurn } from '../../lib/event-loop';
import {
  addStoredHumans,
  blockId,
  blockKey,
  blockLocation,
  blockParamsJson,
  blockSerial,
  blockTargetId,
  blockValueId,
  type ClickBuffer,
  NO_PARAMS_JSON,
} from '../clicks/public';
import type { LinkStore, RedirectRow } from '../links/public';
import type { VariantRow, VariantStore } from '../variants/public';
import { LinkTable, STATUS_NAMES, type VariantFacts } from './link-table';
import { applyParams } from './location';
import { isLateReserved, type ReservedSlugLink } from './reserved';

/** A copy of one link's entry, to inspect it (tests, benchmarks); the redirect reads the table itself. */
export interface LinkView {
  readonly id: string;
  readonly slug: string;
  readonly domainId: number;
  readonly status: RedirectRow['status'];
  readonly expiresAt: number | null;
  readonly clickLimit: number | null;
  readonly counters: { humanClicks: number; unsorted: number };
  readonly base: TargetView;
  readonly variants: ReadonlyMap<string, TargetView & { variantId: string }>;
}

interface TargetView {
  serial: number;
  location: string;
  paramsJson: string;
  /** The ids its clicks carry to the PostgreSQL writer (clickIdsOf), 0: not known. */
  valueId: number;
  targetId: number;
}

function targetView(arena: Buffer, at: number): TargetView {
  return {
    serial: blockSerial(arena, at),
    location: blockLocation(arena, at),
    paramsJson: blockParamsJson(arena, at),
    valueId: blockValueId(arena, at),
    targetId: blockTargetId(arena, at),
  };
}

function paramsJsonOf(params: Record<string, string>): string {
  return Object.keys(params).length === 0 ? NO_PARAMS_JSON : JSON.stringify(params);
}

/**
 * Where a link's clicks without a variant, code or rule go, as its clicks name it: the
 * Location and the params' JSON the link index serves (the PostgreSQL click writer's plain
 * target, made with the link).
 */
export function plainTargetOf(row: { destination: string; params: Record<string, string> }): {
  location: string;
  paramsJson: string;
} {
  return { location: applyParams(row.destination, row.params), paramsJson: paramsJsonOf(row.params) };
}

/**
 * The ids a click of this link is named with on PostgreSQL, as the database held them when the
 * row was read: the link's dictionary value, and the plain target matching exactly what the
 * index serves (none after an edit until a click or the edit names it: 0, looked up then).
 */
export function clickIdsOf(
  row: RedirectRow,
  plain: { location: string; paramsJson: string },
): { valueId: number; targetId: number } {
  const names = row.clickNames;
  if (names === undefined) return { valueId: 0, targetId: 0 };
  const target = names.plainTargets.find(
    ([, location, params]) => location === plain.location && params === plain.paramsJson,
  );
  return { valueId: names.value, targetId: target?.[0] ?? 0 };
}

function variantsOf(row: RedirectRow, variantRows: VariantRow[]): VariantFacts[] {
  return variantRows.map((v) => {
    const params = { ...row.params, ...v.params };
    return {
      code: v.code,
      variantId: v.id,
      location: applyParams(row.destination, params),
      paramsJson: paramsJsonOf(params),
    };
  });
}

/** The background load's first page; each next one is twice as large, up to its page size. */
const FIRST_PAGE = 50;

export class LinkIndex {
  readonly table = new LinkTable();
  /** The ids put while a resync runs (`resync`), else null. */
  private resyncSeen: Set<string> | null = null;
  /** False while a background load runs: a miss may then be a link not read yet. */
  private complete = true;
  private loadRun = 0;
  /** The links read by the load running whose slug became a reserved word (reserved.ts). */
  private reservedSeen: ReservedSlugLink[] = [];
  /** The unit running or last queued: each next one starts when it ends. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly stores: { links: LinkStore; variants: VariantStore },
    private readonly buffer: ClickBuffer,
    /** The default domain's id: the domain of a slug asked without one (tests, tools). */
    private readonly defaultDomain: () => number = () => 1,
    /** Told once per load of the links whose slug became a reserved word (index.ts answers them). */
    private readonly onReservedSlugs: (links: readonly ReservedSlugLink[]) => void = () => {},
  ) {}

  /** Runs `unit` after every unit queued before it (see the file's comment). */
  private serially<T>(unit: () => Promise<T>): Promise<T> {
    const run = this.queue.then(unit, unit);
    this.queue = run.catch(() => {});
    return run;
  }

  get size(): number {
    return this.table.size;
  }

  /** Whether every link is in memory (false while the background load runs). */
  get loaded(): boolean {
    return this.complete;
  }

  /**
   * The slot of a slug on a domain (the default one when not given) (link-table.ts), or -1: the
   * redirect's lookup, in memory. -1 while the load is incomplete may be a link not read yet:
   * the redirect then asks `lookup`.
   */
  find(slug: string, domainId = this.defaultDomain()): number {
    return this.table.find(domainId, slug);
  }

  /** The slot of a slug, reading the database when it is not in memory while the load runs. */
  lookup(slug: string, domainId = this.defaultDomain()): Promise<number> {
    return this.serially(async () => {
      const slot = this.table.find(domainId, slug);
      if (slot >= 0 || this.complete) return slot;
      const row = await this.stores.links.redirectRowBySlug(domainId, slug);
      if (row === null) return -1;
      // Read meanwhile by the load or a write: that entry is as fresh.
      const known = this.table.findId(row.id);
      if (known >= 0) return known;
      return this.put(row, (await this.stores.variants.ofLinks([row.id])).get(row.id) ?? []);
    });
  }

  /**
   * Reads the link of a slug from the database into memory whatever the load's state: a link
   * another node made a moment ago, before its change reaches this node (read-through). Its
   * slot, or -1 when there is none.
   */
  learn(slug: string, domainId = this.defaultDomain()): Promise<number> {
    return this.serially(async () => {
      const row = await this.stores.links.redirectRowBySlug(domainId, slug);
      if (row === null) return -1;
      const known = this.table.findId(row.id);
      if (known >= 0) return known;
      return this.put(row, (await this.stores.variants.ofLinks([row.id])).get(row.id) ?? []);
    });
  }

  /** A copy of a link's entry by slug, or undefined. */
  async get(slug: string, domainId = this.defaultDomain()): Promise<LinkView | undefined> {
    const slot = await this.lookup(slug, domainId);
    return slot < 0 ? undefined : this.view(slot);
  }

  getById(id: string): LinkView | undefined {
    const slot = this.table.findId(id);
    return slot < 0 ? undefined : this.view(slot);
  }

  /** Classifies a link's buffered clicks now, so its human count is exact (a delete decides on it). */
  settle(id: string): void {
    const slot = this.table.findId(id);
    if (slot >= 0) this.buffer.settleLink(slot);
  }

  /** A link's stored human clicks plus its buffered ones known to be human, or undefined when not in memory. */
  humanClicksOf(id: string): number | undefined {
    const slot = this.table.findId(id);
    return slot < 0 ? undefined : this.table.humanClicks[slot];
  }

  /**
   * `humans` human clicks were folded into this link's stored count after the index read it (a
   * start that waited for space does its own folds late: server.ts): its click limit counts them.
   */
  countStored(id: string, humans: number): void {
    const slot = this.table.findId(id);
    if (slot >= 0) addStoredHumans(this.table, slot, humans);
  }

  /**
   * `humans` imported human clicks of the link were counted by a fold after which its stored
   * human clicks were `storedAfter` (the SQLite writer's take: ClickFlusher.onImported). Added
   * when the link was last read before that fold (its stored count then was less), so a link
   * read again since, which holds them already, never counts them twice.
   */
  countImported(id: string, humans: number, storedAfter: number): void {
    const slot = this.table.findId(id);
    const read = slot < 0 ? undefined : this.table.storedRead.get(slot);
    // Not limited (nothing reads its count), or read with these clicks in already.
    if (read === undefined || read >= storedAfter) return;
    addStoredHumans(this.table, slot, humans);
    this.table.storedRead.set(slot, storedAfter);
  }

  private view(slot: number): LinkView {
    const t = this.table;
    const expiresAt = t.expiresAt[slot]!;
    const clickLimit = t.clickLimit[slot]!;
    return {
      id: t.linkId(slot),
      slug: t.slug(slot),
      domainId: t.domainId[slot]!,
      status: STATUS_NAMES[t.status[slot]!]!,
      expiresAt: Number.isNaN(expiresAt) ? null : expiresAt,
      clickLimit: Number.isNaN(clickLimit) ? null : clickLimit,
      counters: { humanClicks: t.humanClicks[slot]!, unsorted: t.unsorted[slot]! },
      base: targetView(t.arena, t.blockAt[slot]!),
      variants: new Map(
        t
          .variantBlocks(slot)
          .map((at) => [blockKey(t.arena, at), { ...targetView(t.arena, at), variantId: blockId(t.arena, at) }]),
      ),
    };
  }

  /**
   * Stores a link read from the database; a link already in memory keeps its slot and counters
   * (its human count rises to the stored one when that is more: other nodes' clicks), a new one
   * starts at its stored count.
   */
  private put(row: RedirectRow, variantRows: VariantRow[]): number {
    this.resyncSeen?.add(row.id);
    const plain = plainTargetOf(row);
    return this.table.put(
      {
        id: row.id,
        slug: row.slug,
        domainId: row.domainId,
        status: row.status,
        expiresAt: row.expiresAt,
        clickLimit: row.clickLimit,
        ...plain,
        ...clickIdsOf(row, plain),
        fallbackUrl: row.fallbackUrl,
        redirectStatus: row.redirectStatus,
        forwardQuery: row.forwardQuery,
        passwordHash: row.passwordHash,
        rules: row.rules ?? [],
        preview: row.preview,
      },
      variantsOf(row, variantRows),
      row.clickCount,
    );
  }

  /** Reads one page of links after `after` into memory; returns the last id, or null at the end. */
  private loadPage(after: string, pageSize: number): Promise<string | null> {
    return this.serially(async () => {
      const rows = await this.stores.links.redirectPage(after, pageSize);
      if (rows.length === 0) return null;
      const byLink = await this.stores.variants.ofLinks(rows.map((r) => r.id));
      for (const row of rows) {
        // Already read on a miss or by a write during a background load: that entry is as
        // fresh and its counters may be referenced by buffered clicks.
        if (isLateReserved(row.slug)) this.reservedSeen.push({ id: row.id, slug: row.slug, domainId: row.domainId });
        if (this.table.findId(row.id) >= 0) continue;
        this.put(row, byLink.get(row.id) ?? []);
      }
      return rows.at(-1)!.id;
    });
  }

  /** Loads every link now, in pages so a large table never sits in memory twice. */
  async loadAll(pageSize = 5000): Promise<number> {
    this.complete = false;
    this.reservedSeen = [];
    for (let after: string | null = ''; after !== null; ) after = await this.loadPage(after, pageSize);
    this.finishLoad();
    return this.size;
  }

  /** The end of a load: every link in memory, and the links with a reserved slug told of once. */
  private finishLoad(): void {
    this.complete = true;
    const reserved = this.reservedSeen;
    this.reservedSeen = [];
    if (reserved.length > 0) this.onReservedSlugs(reserved);
  }

  /**
   * Loads every link a page per event-loop turn (~5 ms each), answering misses from the
   * database meanwhile (from the call on, even while `first` is pending). Resolves with the
   * number of links once all are in memory.
   */
  async loadInBackground(pageSize = 1000, first?: Promise<unknown>): Promise<number> {
    // Incomplete from now on, so a miss reads the database; the pages start once `first`
    // settles (the follower's place in the change feed, read before any page).
    this.complete = false;
    this.reservedSeen = [];
    const run = ++this.loadRun;
    if (first !== undefined) await first;
    // Small pages first: the code that builds entries is not compiled yet, and a request that
    // comes in during a page waits for it (measured: exec to first 302).
    let size = Math.min(FIRST_PAGE, pageSize);
    for (let after: string | null = ''; after !== null; size = Math.min(pageSize, size * 2)) {
      // Yield first: the caller (the server, just listening) answers before the first page.
      await nextTurn();
      // Stopped (the database is about to close): misses keep reading it until then.
      if (run !== this.loadRun) return this.size;
      after = await this.loadPage(after, size);
    }
    this.finishLoad();
    return this.size;
  }

  /** Ends a background load at its next page (before the database closes). */
  stopLoading(): void {
    this.loadRun++;
  }

  /**
   * Reads every link again, forgetting those gone: for a node that missed changes it can no
   * longer read one by one (redirect/link-follower.ts). Redirects keep answering from memory
   * meanwhile; writes and refreshes interleave page by page, and a link any of them put during
   * the resync counts as seen.
   */
  async resync(pageSize = 1000): Promise<number> {
    const seen = new Set<string>();
    this.resyncSeen = seen;
    try {
      for (let after: string | null = ''; after !== null; ) {
        const from: string = after;
        after = await this.serially(async () => {
          const rows = await this.stores.links.redirectPage(from, pageSize);
          if (rows.length === 0) return null;
          const byLink = await this.stores.variants.ofLinks(rows.map((r) => r.id));
          for (const row of rows) this.apply(row, byLink.get(row.id) ?? []);
          return rows.at(-1)!.id;
        });
      }
      await this.serially(async () => {
        for (const id of this.table.liveIds()) if (!seen.has(id)) this.remove(id);
      });
    } finally {
      this.resyncSeen = null;
    }
    return this.size;
  }

  /** refreshMany for one link (a row written outside the LinkWriter: tests only). */
  refresh(id: string): Promise<void> {
    return this.refreshMany([id]);
  }

  /** Re-reads links and their variants after a write (forgetting those gone), a query or two per page of ids. */
  async refreshMany(ids: Iterable<string>, pageSize = 1000): Promise<void> {
    const all = [...new Set(ids)];
    for (let i = 0; i < all.length; i += pageSize) {
      await this.serially(() => this.refreshPage(all.slice(i, i + pageSize)));
    }
  }

  private async refreshPage(page: string[]): Promise<void> {
    const rows = new Map((await this.stores.links.redirectRows(page)).map((r) => [r.id, r]));
    const byLink = await this.stores.variants.ofLinks([...rows.keys()]);
    for (const id of page) {
      const row = rows.get(id);
      if (!row) {
        this.remove(id);
        continue;
      }
      this.apply(row, byLink.get(id) ?? []);
    }
  }

  /** Puts a link read again (a refresh, a resync). */
  private apply(row: RedirectRow, variantRows: VariantRow[]): void {
    const slot = this.put(row, variantRows);
    // A click limit counts humans exactly: classify this link's buffered clicks now.
    if (row.clickLimit !== null) this.buffer.settleLink(slot);
  }

  remove(id: string): void {
    const slot = this.table.findId(id);
    if (slot < 0) return;
    // Before the slot can be reused: no buffered click may count against it then.
    this.buffer.dropLink(slot);
    this.table.remove(slot);
  }
}
