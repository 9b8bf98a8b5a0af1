/**
 * The names the API's schemas (model.ts) and the code that fills them share, dependency-free: the
 * click record's fields in their documented order (docs/behaviour.md, "Raw clicks"), the
 * statistics' named ranges.
 */
import { CLICK_DIMS } from '../rollups/dimensions';

export const CLICK_FIELDS = [
  'id',
  'linkId',
  'slug',
  'timestamp',
  'variantCode',
  'variantKnown',
  'destination',
  'params',
  ...CLICK_DIMS,
  'bot',
  // Last: added with link rules, after the columns CSV readers already count on.
  'rule',
] as const;

export const RANGES = ['today', '24h', '7d', '30d', '90d', 'all'] as const;
