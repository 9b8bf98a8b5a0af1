/**
 * A raw click as the clicks list and the CSV export read it, the same on both engines
 * (sqlite/read-clicks.ts, postgres/read-clicks.ts): its columns turned into a listed click or an
 * export row.
 */
import { type ClickDimTuple, type ClickDimValues, dimValues } from '../rollups/public';
import { type ClickTarget, FLAG_BOT, FLAG_FIRST_OF_DAY } from './stored-click';

/**
 * A raw click as the clicks list reads it: what was recorded, its ids turned back into text
 * (params as the JSON text stored; the list parses it, the export does not).
 */
export interface ListedClick extends ClickDimValues {
  id: number;
  timestamp: number;
  code: string | null;
  variantId: string | null;
  destination: string;
  paramsJson: string;
  bot: boolean;
  /** The index of the link rule that chose the destination, or null. */
  rule: number | null;
}

/** The export row at `i` of a page's columns, in ExportRow's order (either engine). */
export function exportRow(
  c: { id: ArrayLike<number>; time: ArrayLike<number>; flags: ArrayLike<number> },
  i: number,
  target: ClickTarget,
  dims: ClickDimTuple,
): ExportRow {
  return [
    c.id[i]!,
    c.time[i]!,
    target.code,
    target.variantId,
    target.destination,
    target.params,
    ...dims,
    c.flags[i]! & FLAG_BOT,
    target.rule,
    (c.flags[i]! & FLAG_FIRST_OF_DAY) === 0 ? 0 : 1,
  ];
}

/** The listed click at `i` of a page's columns: its target's facts, its flags and its dimensions' texts (either engine). */
export function listedClick(
  c: { id: ArrayLike<number>; time: ArrayLike<number>; flags: ArrayLike<number> },
  i: number,
  target: ClickTarget,
  dims: ClickDimTuple,
): ListedClick {
  return {
    id: c.id[i]!,
    timestamp: c.time[i]!,
    code: target.code,
    variantId: target.variantId,
    destination: target.destination,
    paramsJson: target.params,
    bot: (c.flags[i]! & FLAG_BOT) !== 0,
    rule: target.rule,
    ...dimValues(dims),
  };
}

/**
 * A stored click as the export reads it, in CSV order (the link id and slug are the same on
 * every row and are not read). Positional, not an object per row: a million-row export
 * allocates every value it reads.
 */
export type ExportRow = [
  id: number,
  timestamp: number,
  variantCode: string | null,
  variantId: string | null,
  destination: string,
  params: string,
  ...dims: ClickDimTuple,
  bot: number,
  rule: number | null,
  /** 1: its visitor's first visit of its UTC day on the link (a unique), else 0. */
  firstOfDay: number,
];
