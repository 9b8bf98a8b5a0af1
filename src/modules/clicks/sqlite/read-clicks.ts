/**
 * The raw clicks as the click list and the CSV export (in its Worker) read them: each click
 * with its ids turned back into the strings it was recorded with (raw-read.ts reads them).
 */
import type { Database } from 'bun:sqlite';
import { DIM_COUNT, linkValueId } from '../../rollups/public';
import { type ExportRow, exportRow, type ListedClick, listedClick } from '../read-clicks';
import { type ClickKey, type ClickNames, clickNames, dimensionTexts, LinkClickReader, targetOf } from './raw-read';

export type { ClickKey } from './raw-read';

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

/** Where an ExportRow's dimensions start, its bot flag, its rule and its first-visit flag. */
export const EXPORT_DIMS_AT = 6;
export const EXPORT_BOT_AT = EXPORT_DIMS_AT + DIM_COUNT;
export const EXPORT_RULE_AT = EXPORT_BOT_AT + 1;
export const EXPORT_FIRST_AT = EXPORT_RULE_AT + 1;

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
