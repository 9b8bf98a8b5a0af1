/**
 * The click record: its fields in their documented order (docs/behaviour.md, "Raw clicks"), the
 * list's items, the CSV's columns and the `clicks` events' records. The dimensions come from
 * their one definition.
 */
import { CLICK_DIMS, type ClickDimValues } from '../rollups/dimensions';
import type { Click } from './model';

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

/** What a click record is made of, as either engine stores a click. */
export interface ClickFacts extends ClickDimValues {
  id: number;
  timestamp: number;
  code: string | null;
  destination: string;
  paramsJson: string;
  bot: boolean;
  rule: number | null;
}

/**
 * The API's click record. `slug` is the link's as it is now; `variantKnown`: the code named a
 * variant when clicked and that variant still exists.
 */
export function clickRecord(f: ClickFacts, link: { id: string; slug: string }, variantKnown: boolean): Click {
  const dims = Object.fromEntries(CLICK_DIMS.map((d) => [d, f[d]])) as ClickDimValues;
  return {
    id: f.id,
    linkId: link.id,
    slug: link.slug,
    timestamp: f.timestamp,
    variantCode: f.code,
    variantKnown,
    destination: f.destination,
    params: JSON.parse(f.paramsJson) as Record<string, string>,
    ...dims,
    bot: f.bot,
    rule: f.rule,
  };
}
