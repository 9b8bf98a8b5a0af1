/**
 * The click record: its fields in their documented order (docs/behaviour.md, "Raw clicks"), the
 * list's items, the CSV's columns and the `clicks` events' records. The dimensions come from
 * their one definition.
 */
import { CLICK_DIMS, type ClickDimValues } from '../rollups/dimensions';
import type { Click } from './model';

/** What a click record is made of, as either engine stores a click (its id and time apart). */
export interface ClickFacts extends ClickDimValues {
  code: string | null;
  destination: string;
  paramsJson: string;
  bot: boolean;
  rule: number | null;
}

/**
 * The API's click record, its fields in CLICK_FIELDS order. `slug` is the link's as it is now;
 * `variantKnown`: the code named a variant when clicked and that variant still exists; `params`
 * parsed already when the caller has them (a click batch's events: thousands of records).
 */
export function clickRecord(
  click: { id: number; timestamp: number; facts: ClickFacts; params?: Readonly<Record<string, string>> },
  link: { id: string; slug: string },
  variantKnown: boolean,
): Click {
  const f = click.facts;
  const record = {
    id: click.id,
    linkId: link.id,
    slug: link.slug,
    timestamp: click.timestamp,
    variantCode: f.code,
    variantKnown,
    destination: f.destination,
    params: click.params ?? (JSON.parse(f.paramsJson) as Record<string, string>),
  } as Click;
  for (const d of CLICK_DIMS) record[d] = f[d];
  record.bot = f.bot;
  record.rule = f.rule;
  return record;
}
