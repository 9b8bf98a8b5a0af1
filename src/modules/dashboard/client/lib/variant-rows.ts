/**
 * The Variants breakdown's rows. A link's list carries an entry `""` for the clicks on the link
 * itself (on the bare link, and on codes that match no variant), so that it adds up to the
 * link's clicks: it is named for what it is, not "Unknown". The workspace's entries are one per
 * link and variant (`<slug>/<code>`, the API's value), each leading to that link's statistics
 * for the same window, like the top links. DOM-free (unit-tested on its own).
 */
import type { Stats, WorkspaceStats } from '../api/types';
import { breakdownLabel } from './stats-labels';

export type LinkVariantEntry = Stats['breakdowns']['variant'][number];
export type WorkspaceVariantEntry = WorkspaceStats['breakdowns']['variant'][number];

/** A row of the breakdown table (its BreakdownRow), spelled out here to keep this file DOM-free. */
export interface VariantRow {
  key: string;
  label: string;
  href?: string;
  clicks: number;
}

const isWorkspaceEntry = (e: LinkVariantEntry | WorkspaceVariantEntry): e is WorkspaceVariantEntry => 'linkId' in e;

/** `search` is the statistics window (`?range=7d`), kept on the way to a link's statistics. */
export function variantRows(entries: (LinkVariantEntry | WorkspaceVariantEntry)[], search: string): VariantRow[] {
  return entries.map((e) =>
    isWorkspaceEntry(e)
      ? {
          key: `${e.linkId}/${e.code}`,
          label: e.value,
          href: `/app/links/${encodeURIComponent(e.linkId)}/stats${search}`,
          clicks: e.clicks,
        }
      : { key: e.value, label: breakdownLabel('variant', e.value), clicks: e.clicks },
  );
}
