/**
 * /app/links/:id/stats: one link's statistics for a window kept in the address, its raw clicks
 * and their CSV export for the same window.
 */
import { getLink } from '../api/links';
import { getLinkStats, listClicks } from '../api/stats';
import { LoadFailed, Loading } from '../components/feedback';
import { LinkNotFound } from '../components/link-not-found';
import { StatsView } from '../components/stats/stats-view';
import { usePageTitle, useResource } from '../lib/hooks';
import { useLiveStats } from '../lib/live-stats';
import { type StatsWindow, windowOf, windowSearch } from '../lib/stats-window';
import { navigate } from '../router';
import { ClicksList } from './link-stats/clicks-list';
import type { PageProps } from './page';

export function LinkStatsPage({ params, query }: PageProps) {
  const id = params.id ?? '';
  const w = windowOf(query);
  const search = windowSearch(w);
  const link = useResource(() => getLink(id), [id]);
  const { stats, live, liveMark } = useLiveStats(
    () => getLinkStats(id, w),
    `${id}${search}`,
    id,
    async () => (await listClicks(id, { range: '24h' }, null)).items,
  );
  const name = link.data ? (link.data.title ?? link.data.slug) : 'Link';
  usePageTitle(`Statistics of ${name}`);
  const page = `/app/links/${encodeURIComponent(id)}`;

  if (link.error?.code === 'not_found') return <LinkNotFound />;
  if (!link.data) {
    return link.error ? <LoadFailed error={link.error} retry={link.reload} /> : <Loading active />;
  }
  const onWindow = (next: StatsWindow) => navigate(`${page}/stats${windowSearch(next)}`, { replace: true });
  return (
    <>
      <p class="breadcrumb">
        <a href="/app">Links</a> / <a href={page}>{link.data.slug}</a>
      </p>
      <div class="page-head">
        <h1>Statistics of {name}</h1>
      </div>
      <p class="short-url">
        <code>{link.data.shortUrl}</code>
      </p>
      <StatsView
        stats={stats}
        window={w}
        onWindow={onWindow}
        live={live}
        liveMark={liveMark}
        rules={link.data.rules}
        empty={
          <p>
            Share the short link <code>{link.data.shortUrl}</code>: its clicks show here within seconds. Or pick a
            longer range.
          </p>
        }
        after={<ClicksList linkId={id} slug={link.data.slug} window={w} />}
      />
    </>
  );
}
