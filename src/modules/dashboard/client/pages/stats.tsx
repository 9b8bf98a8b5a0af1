/**
 * /app/stats: the whole workspace's statistics for a window kept in the address, with the links
 * that had the most clicks (by title, each leading to its own statistics for the same window).
 */
import { getWorkspaceStats } from '../api/stats';
import type { WorkspaceStats } from '../api/types';
import { BreakdownTable } from '../components/stats/breakdown-table';
import { StatsView } from '../components/stats/stats-view';
import { usePageTitle } from '../lib/hooks';
import { useLiveStats } from '../lib/live-stats';
import { type StatsWindow, windowOf, windowSearch } from '../lib/stats-window';
import { topLinkRows } from '../lib/top-links';
import { navigate } from '../router';
import type { PageProps } from './page';

function TopLinks({ stats, search }: { stats: WorkspaceStats; search: string }) {
  return (
    <BreakdownTable
      id="top-links"
      title="Top links"
      column="Link"
      total={stats.totals.clicks}
      empty="No link had clicks in this range."
      rows={topLinkRows(stats.topLinks, search)}
    />
  );
}

export function StatsPage({ query }: PageProps) {
  usePageTitle('Statistics');
  const w = windowOf(query);
  const search = windowSearch(w);
  // Without the stream there is no workspace-wide clicks list to poll: the numbers are read
  // again, and the feed waits for the stream to come back.
  const { stats, live, liveMark } = useLiveStats(
    () => getWorkspaceStats(w),
    search,
    null,
    async () => [],
  );
  const onWindow = (next: StatsWindow) => navigate(`/app/stats${windowSearch(next)}`, { replace: true });
  return (
    <>
      <div class="page-head">
        <h1>Statistics</h1>
      </div>
      <StatsView
        stats={stats}
        window={w}
        onWindow={onWindow}
        live={live}
        liveMark={liveMark}
        liveShowsLink
        empty={<p>Share a short link: its clicks show here within seconds. Or pick a longer range.</p>}
      >
        {stats.data && <TopLinks stats={stats.data} search={search} />}
      </StatsView>
    </>
  );
}
