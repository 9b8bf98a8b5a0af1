/**
 * Every link's redirect facts in memory, by slug: the hot path answers without touching
 * SQLite. Link and variant services call `refresh(id)` / `remove(id)` after each write, so
 * the map is coherent with every API write (create, patch, rename, status, variants, delete).
 * Each entry's `counters` object keeps its identity across refreshes: buffered clicks point at
 * it, and the click limit reads it.
 */
import type { Db } from '../../db/client';
import type { ClickBuffer } from '../clicks/buffer';
import type { ClickTarget, LinkCounters } from '../clicks/record';
import { findRedirectRow, listRedirectRows, type RedirectRow } from '../links/repo';
import type { LinkRow } from '../links/table';
import { findVariantsByLinkIds } from '../variants/repo';
import type { VariantRow } from '../variants/table';
import { applyParams } from './location';

export interface RedirectEntry {
  readonly id: string;
  readonly slug: string;
  readonly status: LinkRow['status'];
  readonly expiresAt: number | null;
  readonly clickLimit: number | null;
  readonly counters: LinkCounters;
  readonly base: ClickTarget;
  /** Variant targets by code (case-sensitive like slugs). */
  readonly variants: ReadonlyMap<string, ClickTarget>;
}

function target(linkId: string, variantId: string | null, destination: string, params: Record<string, string>, counters: LinkCounters): ClickTarget {
  return Object.freeze({ linkId, variantId, location: applyParams(destination, params), paramsJson: JSON.stringify(params), counters });
}

export class LinkIndex {
  private readonly bySlug = new Map<string, RedirectEntry>();
  private readonly byId = new Map<string, RedirectEntry>();

  constructor(
    private readonly db: Db,
    private readonly buffer: ClickBuffer,
  ) {}

  get size(): number {
    return this.byId.size;
  }

  /** The entry for a slug, or undefined. The redirect's only lookup. */
  get(slug: string): RedirectEntry | undefined {
    return this.bySlug.get(slug);
  }

  getById(id: string): RedirectEntry | undefined {
    return this.byId.get(id);
  }

  private build(row: RedirectRow, variantRows: VariantRow[], counters: LinkCounters): RedirectEntry {
    const byCode = new Map<string, ClickTarget>();
    for (const v of variantRows) byCode.set(v.code, target(row.id, v.id, row.destination, { ...row.params, ...v.params }, counters));
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
    if (previous && previous.slug !== entry.slug) this.bySlug.delete(previous.slug);
    this.byId.set(entry.id, entry);
    this.bySlug.set(entry.slug, entry);
  }

  /** Loads every link, in pages so a large table never sits in memory twice. */
  loadAll(pageSize = 5000): void {
    let after = '';
    for (;;) {
      const rows = listRedirectRows(this.db, after, pageSize);
      if (rows.length === 0) return;
      const byLink = findVariantsByLinkIds(this.db, rows.map((r) => r.id));
      for (const row of rows) this.put(this.build(row, byLink.get(row.id) ?? [], { humanClicks: row.clickCount, unsorted: 0 }));
      after = rows.at(-1)!.id;
    }
  }

  /** Re-reads one link and its variants after a write (or forgets it when it is gone). */
  refresh(id: string): void {
    const row = findRedirectRow(this.db, id);
    if (!row) return this.remove(id);
    const previous = this.byId.get(id);
    const counters = previous?.counters ?? { humanClicks: row.clickCount, unsorted: 0 };
    this.put(this.build(row, findVariantsByLinkIds(this.db, [id]).get(id) ?? [], counters));
    // A click limit counts humans exactly: classify this link's buffered clicks now.
    if (row.clickLimit !== null) this.buffer.settleLink(id);
  }

  remove(id: string): void {
    const previous = this.byId.get(id);
    if (!previous) return;
    this.byId.delete(id);
    if (this.bySlug.get(previous.slug) === previous) this.bySlug.delete(previous.slug);
    this.buffer.dropLink(id);
  }
}
