/**
 * Every link's redirect facts in memory, by slug: the hot path answers without touching
 * SQLite. Every link, tag or variant write goes through writeLinks (links/writes.ts), which
 * calls `refreshMany` with the links it touched after COMMIT: the map is coherent with every write.
 * Each entry's `counters` object keeps its identity across refreshes: buffered clicks point at
 * it, and the click limit reads it.
 *
 * At start the server loads the links in the background (`loadInBackground`), a page per
 * event-loop turn, so it answers its first redirect in milliseconds rather than after reading
 * every link (~1 s at 100,000); until the load ends, a slug not in memory yet is read from
 * SQLite on the spot and kept.
 */
import type { Db } from '../../db/client';
import type { ClickBuffer } from '../clicks/buffer';
import { type ClickTarget, type LinkCounters, targetSerial } from '../clicks/record';
import { findRedirectRowBySlug, findRedirectRows, listRedirectRows, type RedirectRow } from '../links/repo';
import { findVariantsByLinkIds, type VariantRow } from '../variants/repo';
import { applyParams } from './location';

interface RedirectEntry {
  readonly id: string;
  readonly slug: string;
  readonly status: RedirectRow['status'];
  readonly expiresAt: number | null;
  readonly clickLimit: number | null;
  readonly counters: LinkCounters;
  readonly base: ClickTarget;
  /** Variant targets by code (case-sensitive like slugs). */
  readonly variants: ReadonlyMap<string, ClickTarget>;
}

// Most links have no variants and no params: they share these instead of one empty each.
const NO_VARIANTS: ReadonlyMap<string, ClickTarget> = new Map();
const NO_PARAMS_JSON = '{}';

function target(
  linkId: string,
  variantId: string | null,
  destination: string,
  params: Record<string, string>,
  counters: LinkCounters,
): ClickTarget {
  const empty = Object.keys(params).length === 0;
  return Object.freeze({
    serial: targetSerial(),
    linkId,
    variantId,
    location: applyParams(destination, params),
    paramsJson: empty ? NO_PARAMS_JSON : JSON.stringify(params),
    counters,
  });
}

export class LinkIndex {
  private readonly bySlug = new Map<string, RedirectEntry>();
  private readonly byId = new Map<string, RedirectEntry>();
  /** False while a background load runs: a miss may then be a link not read yet. */
  private complete = true;
  private loadRun = 0;

  constructor(
    private readonly db: Db,
    private readonly buffer: ClickBuffer,
  ) {}

  get size(): number {
    return this.byId.size;
  }

  /** Whether every link is in memory (false while the background load runs). */
  get loaded(): boolean {
    return this.complete;
  }

  /** The entry for a slug, or undefined. The redirect's only lookup. */
  get(slug: string): RedirectEntry | undefined {
    const entry = this.bySlug.get(slug);
    if (entry !== undefined || this.complete) return entry;
    const row = findRedirectRowBySlug(this.db, slug);
    if (row === undefined) return undefined;
    const missed = this.build(row, findVariantsByLinkIds(this.db, [row.id]).get(row.id) ?? []);
    this.put(missed);
    return missed;
  }

  getById(id: string): RedirectEntry | undefined {
    return this.byId.get(id);
  }

  /** `counters` is the previous entry's when there is one (buffered clicks point at it); else the stored count. */
  private build(
    row: RedirectRow,
    variantRows: VariantRow[],
    counters: LinkCounters = { humanClicks: row.clickCount, unsorted: 0 },
  ): RedirectEntry {
    let byCode = NO_VARIANTS;
    if (variantRows.length > 0) {
      const map = new Map<string, ClickTarget>();
      for (const v of variantRows)
        map.set(v.code, target(row.id, v.id, row.destination, { ...row.params, ...v.params }, counters));
      byCode = map;
    }
    return {
      id: row.id,
      slug: row.slug,
      status: row.status,
      expiresAt: row.expiresAt,
      clickLimit: row.clickLimit,
      counters,
      base: target(row.id, null, row.destination, { ...row.params }, counters),
      variants: byCode,
    };
  }

  private put(entry: RedirectEntry): void {
    const previous = this.byId.get(entry.id);
    // Only if the old slug is still its own: another link of the same write may have taken it.
    if (previous && previous.slug !== entry.slug && this.bySlug.get(previous.slug) === previous)
      this.bySlug.delete(previous.slug);
    this.byId.set(entry.id, entry);
    this.bySlug.set(entry.slug, entry);
  }

  /** Reads one page of links after `after` into memory; returns the last id, or null at the end. */
  private loadPage(after: string, pageSize: number): string | null {
    const rows = listRedirectRows(this.db, after, pageSize);
    if (rows.length === 0) return null;
    const byLink = findVariantsByLinkIds(
      this.db,
      rows.map((r) => r.id),
    );
    for (const row of rows) {
      // Already read on a miss or by a write during a background load: that entry is as
      // fresh and its counters may be referenced by buffered clicks.
      if (this.byId.has(row.id)) continue;
      this.put(this.build(row, byLink.get(row.id) ?? []));
    }
    return rows.at(-1)!.id;
  }

  /** Loads every link now, in pages so a large table never sits in memory twice. */
  loadAll(pageSize = 5000): void {
    for (let after: string | null = ''; after !== null; ) after = this.loadPage(after, pageSize);
    this.complete = true;
  }

  /**
   * Loads every link a page per event-loop turn (~5 ms each), answering misses from SQLite
   * meanwhile. Resolves with the number of links once all are in memory.
   */
  async loadInBackground(pageSize = 1000): Promise<number> {
    this.complete = false;
    const run = ++this.loadRun;
    for (let after: string | null = ''; after !== null; ) {
      // Yield first: the caller (the server, just listening) answers before the first page.
      await new Promise<void>((resolve) => setImmediate(resolve));
      // Stopped (the database is about to close): misses keep reading SQLite until then.
      if (run !== this.loadRun) return this.size;
      after = this.loadPage(after, pageSize);
    }
    this.complete = true;
    return this.size;
  }

  /** Ends a background load at its next page (before the database closes). */
  stopLoading(): void {
    this.loadRun++;
  }

  /** refreshMany for one link (a row written outside writeLinks: tests only). */
  refresh(id: string): void {
    this.refreshMany([id]);
  }

  /** Re-reads links and their variants after a write (forgetting those gone), a query or two per page of ids. */
  refreshMany(ids: Iterable<string>, pageSize = 1000): void {
    const all = [...new Set(ids)];
    for (let i = 0; i < all.length; i += pageSize) {
      const page = all.slice(i, i + pageSize);
      const rows = new Map(findRedirectRows(this.db, page).map((r) => [r.id, r]));
      const byLink = findVariantsByLinkIds(this.db, [...rows.keys()]);
      for (const id of page) {
        const row = rows.get(id);
        if (!row) {
          this.remove(id);
          continue;
        }
        this.put(this.build(row, byLink.get(id) ?? [], this.byId.get(id)?.counters));
        // A click limit counts humans exactly: classify this link's buffered clicks now.
        if (row.clickLimit !== null) this.buffer.settleLink(id);
      }
    }
  }

  remove(id: string): void {
    const previous = this.byId.get(id);
    if (!previous) return;
    this.byId.delete(id);
    if (this.bySlug.get(previous.slug) === previous) this.bySlug.delete(previous.slug);
    this.buffer.dropLink(id);
  }
}
