/**
 * What the variants module needs: its store, the link a variant belongs to (the links store is
 * one), and the writes of variants, which are redirect facts and so go through the LinkWriter
 * (links/writer.ts, which refreshes the slug index): given by the composition root, so variants
 * import nothing of links.
 */
import type { Config } from '../../config';
import type { Clock } from '../../lib/clock';
import type { Audited } from '../audit/public';
import type { VariantRow, VariantStore } from './store';

export interface VariantWrites {
  insert(row: VariantRow, audit?: Audited): Promise<void>;
  update(linkId: string, id: string, changes: Partial<VariantRow>, audit?: Audited): Promise<void>;
  delete(linkId: string, id: string, audit?: Audited): Promise<void>;
}

export interface VariantsDeps {
  stores: {
    readonly variants: VariantStore;
    /** The variant's link, by id (its domain and slug make the variant's short URL; its project and domain, who sees it). */
    readonly links: {
      find(id: string): Promise<{ slug: string; domainId: number; projectId: string | null } | null>;
    };
  };
  config: Config;
  /** The origin of a link's domain (domains/directory.ts). */
  domains: { originOf(id: number): string };
  clock: Clock;
  variantWrites: VariantWrites;
}
