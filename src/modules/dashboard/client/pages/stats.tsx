/**
 * /app/stats: the whole workspace's statistics for a window kept in the address, with the links
 * that had the most clicks (by title, each leading to its own statistics for the same window).
 * With more than one domain, a Domain choice (also in the address, ?domain=) counts only the
 * clicks of that domain's links.
 */
import { getWorkspaceStats } from '../api/stats';
import type { WorkspaceStats } from '../api/types';
import { SelectField } from '../components/field';
import { BreakdownTable } from '../components/stats/breakdown-table';
import { StatsView } from '../components/stats/stats-view';
import { domainOptions, useDomains } from '../lib/domains';
import { usePageTitle } from '../lib/hooks';
import type { LiveClicks } from '../lib/live-clicks';
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

/** The stream's clicks of the chosen domain only (each click record names its link's domain). */
function onDomain(live: LiveClicks, domain: string | undefined): LiveClicks {
  return domain ? { ...live, received: live.received.filter((r) => r.click.domain === domain) } : live;
}

/** The page's address: the window, then the domain when one is chosen. */
function statsPath(w: StatsWindow, domain: string | undefined): string {
  const search = new URLSearchParams(windowSearch(w));
  if (domain) search.set('domain', domain);
  return search.size ? `/app/stats?${search}` : '/app/stats';
}

export function StatsPage({ query }: PageProps) {
  usePageTitle('Statistics');
  const w = windowOf(query);
  const domain = query.get('domain') || undefined;
  const search = windowSearch(w);
  const domains = useDomains();
  // Without the stream there is no workspace-wide clicks list to poll: the numbers are read
  // again, and the feed waits for the stream to come back.
  const { stats, live, liveMark } = useLiveStats(
    () => getWorkspaceStats(w, domain),
    statsPath(w, domain),
    null,
    async () => [],
  );
  const onWindow = (next: StatsWindow) => navigate(statsPath(next, domain), { replace: true });
  const pickDomain = (next: string) => navigate(statsPath(w, next || undefined), { replace: true });
  return (
    <>
      <div class="page-head">
        <h1>Statistics</h1>
        {(domains.list.length > 1 || domain) && (
          <div class="stats-domain">
            <SelectField
              label="Domain"
              value={domain ?? ''}
              onValue={pickDomain}
              blank="All domains"
              options={domainOptions(domains.list)}
              error={stats.error?.field === 'domain' ? stats.error.message : null}
            />
          </div>
        )}
      </div>
      <StatsView
        stats={stats}
        window={w}
        onWindow={onWindow}
        live={onDomain(live, domain)}
        liveMark={liveMark}
        liveShowsLink
        empty={<p>Share a short link: its clicks show here within seconds. Or pick a longer range.</p>}
      >
        {stats.data && <TopLinks stats={stats.data} search={search} />}
      </StatsView>
    </>
  );
}
