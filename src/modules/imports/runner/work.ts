/**
 * A page's links as they pass through a run: decided and made (page-links.ts), their history
 * stored (page-history.ts), then counted into the run's progress and report (progress.ts).
 * Kept apart so that each of those files reads this shape without importing the others.
 */
import type { LinkRow } from '../../links/public';
import type { PlannedVariant } from '../decide';
import type { SourceLink, SourcePage } from '../source';
import type { ImportItemRow, ImportLinkRow } from '../store';

/** A source link of the page: its report line, and what it became. */
export interface Planned {
  link: SourceLink;
  item: ImportItemRow;
  /** The link to make (null: none, the item says why) and the id of an existing one. */
  row: LinkRow | null;
  tags: string[];
  variants: PlannedVariant[];
  linkId: string | null;
  mapping: ImportLinkRow | null;
}

/** What a page's links came to, counted into the run's progress when the page is saved. */
export interface Tally {
  seen: number;
  created: number;
  skipped: number;
  /** Of the skipped, those an earlier run of the source made (outcome `existing`). */
  existing: number;
  failed: number;
  notes: { source: string; reason: string }[];
}

/** A page whose links are decided and made; its history is stored next. */
export interface PageWork {
  page: SourcePage;
  planned: Planned[];
  tally: Tally;
}
