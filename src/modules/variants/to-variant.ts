/** A variant's row becomes the API's Variant here: what a link's `variants` and the variant verbs answer. */
import { shortUrlOf } from '../../lib/short-url';
import type { Variant } from './model';
import type { VariantRow } from './store';

/** `origin`: the origin of the link's domain (its short URL's start). */
export function toVariant(row: VariantRow, origin: string, slug: string): Variant {
  return {
    id: row.id,
    code: row.code,
    url: shortUrlOf(origin, slug, row.code),
    params: row.params,
    clickCount: row.clickCount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
