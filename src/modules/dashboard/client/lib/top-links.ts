/**
 * The workspace's top links as breakdown rows: a link's title first (what a person named it),
 * its slug on a quieter second line (random slugs say nothing alone); a link without a title
 * shows its slug. DOM-free (unit-tested on its own).
 */
import type { WorkspaceStats } from '../api/types';

/** A top link as the API sends it. */
export type TopLink = WorkspaceStats['topLinks'][number];

/** A row of the breakdown table (its BreakdownRow), spelled out here to keep this file DOM-free. */
export interface TopLinkRow {
  key: string;
  label: string;
  note: string | undefined;
  href: string;
  clicks: number;
}

/** `search` is the statistics window (`?range=7d`), kept on the way to each link's statistics. */
export function topLinkRows(links: TopLink[], search: string): TopLinkRow[] {
  return links.map((link) => ({
    key: link.id,
    label: link.title || link.slug,
    note: link.title ? link.slug : undefined,
    href: `/app/links/${encodeURIComponent(link.id)}/stats${search}`,
    clicks: link.clicks,
  }));
}
