/** A variant's row becomes the API's Variant here: what a link's `variants` and the variant verbs answer. */
import { shortUrlOf } from '../../lib/short-url';
import type { Variant } from './model';
import type { VariantRow } from './store';

export function toVariant(row: VariantRow, shortHost: string, slug: string): Variant {
  return {
    id: row.id,
    code: row.code,
    url: shortUrlOf(shortHost, slug, row.code),
    params: row.params,
    clickCount: row.clickCount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
