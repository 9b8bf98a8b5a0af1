/**
 * The click record's fields in their documented order (docs/behaviour.md, "Raw clicks"): the
 * list's items and the CSV's columns. The dimensions come from their one definition.
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
