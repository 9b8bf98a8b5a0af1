/**
 * The raw clicks as the click list and the CSV export (in its Worker) read them: each click
 * with its ids turned back into the strings it was recorded with (raw-read.ts reads them).
 */
import type { Database } from 'bun:sqlite';
import { type ClickDimTuple, type ClickDimValues, DIM_COUNT, dimValues, linkValueId } from '../../rollups/public';
import type { ClickTarget } from './click-targets';
import { type ClickKey, type ClickNames, clickNames, dimensionTexts, LinkClickReader, targetOf } from './raw-read';
import { FLAG_BOT } from './tail-append';

export type { ClickKey } from './raw-read';

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

/** The first key past `to`: every click at or before `to` sorts below it (where paging starts). */
export function keyAbove(to: number): ClickKey {
  return { timestamp: to, id: Number.MAX_SAFE_INTEGER };
}

/** Up to `limit` clicks of a link below `before` (newest first) and not before `from`. */
export function readClickPage(
  sqlite: Database,
  linkId: string,
  from: number,
  before: ClickKey,
  bots: boolean,
  limit: number,
): ListedClick[] {
  const link = linkValueId(sqlite, linkId);
  if (link === null) return [];
  const names = clickNames(sqlite);
  const refs = new LinkClickReader(sqlite, link, { from, maxId: Number.POSITIVE_INFINITY, bots }).page(before, limit);
  return refs.map(({ c, i }) => listedClick(c, i, targetOf(names, c.target[i]!), dimensionTexts(names, c, i)));
}

export { lastClickId } from './raw-read';

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
];

/** Where an ExportRow's dimensions start, and its bot flag. */
export const EXPORT_DIMS_AT = 6;
export const EXPORT_BOT_AT = EXPORT_DIMS_AT + DIM_COUNT;
export const EXPORT_RULE_AT = EXPORT_BOT_AT + 1;

/** Blocks an export keeps decoded: the one the cursor is in and the next one or two it overlaps. */
const EXPORT_BLOCKS = 3;

/**
 * readClickPage for the export: the same keys and order, only clicks up to `maxId` (its
 * snapshot). One per export: it keeps the blocks it is reading decoded between pages.
 */
export class ExportPages {
  private readonly reader: LinkClickReader | null;
  private readonly names: ClickNames;

  constructor(sqlite: Database, linkId: string, from: number, maxId: number, bots: boolean) {
    const link = linkValueId(sqlite, linkId);
    this.reader = link === null ? null : new LinkClickReader(sqlite, link, { from, maxId, bots }, EXPORT_BLOCKS);
    this.names = clickNames(sqlite);
  }

  next(before: ClickKey, limit: number): ExportRow[] {
    if (this.reader === null) return [];
    const names = this.names;
    return this.reader
      .page(before, limit)
      .map(({ c, i }) => exportRow(c, i, targetOf(names, c.target[i]!), dimensionTexts(names, c, i)));
  }
}
