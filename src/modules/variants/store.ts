/** What the variants module reads, in its own words (its writes change redirect facts: links/store.ts LinkWrites). */
import type { VariantRow } from './table';

export type { VariantRow };

export interface VariantStore {
  /** Variants of many links at once, oldest first, grouped by link id (one query per page of links). */
  ofLinks(linkIds: string[]): Promise<Map<string, VariantRow[]>>;
  find(linkId: string, variantId: string): Promise<VariantRow | null>;
  findByCode(linkId: string, code: string): Promise<VariantRow | null>;
  /** Current code of every variant id (of one link, or of all links), for the statistics. */
  codes(linkId: string | null): Promise<Map<string, string>>;
  /** The current code and link of the variants of these ids that exist (the statistics name a variant's clicks with them). */
  byIds(ids: string[]): Promise<Map<string, { code: string; linkId: string }>>;
}

/** Rows grouped by their link, order kept. */
export function groupByLink(rows: VariantRow[]): Map<string, VariantRow[]> {
  const byLink = new Map<string, VariantRow[]>();
  for (const row of rows) {
    const list = byLink.get(row.linkId);
    if (list) list.push(row);
    else byLink.set(row.linkId, [row]);
  }
  return byLink;
}
