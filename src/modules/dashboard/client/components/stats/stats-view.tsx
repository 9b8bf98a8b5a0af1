/**
 * The body both statistics pages share: the window picker, then for the counted window its
 * totals, the chart, the page's own panels (top links) and every breakdown. While a new window
 * loads, the last numbers stay (marked busy) and a spinner shows only if it takes a while; an
 * error about the window shows under its field instead of numbers that no longer match it.
 */
import type { ComponentChildren } from 'preact';
import type { Rule, Stats, WorkspaceStats } from '../../api/types';
import type { Resource } from '../../lib/hooks';
import { arrivedAfter, type LiveClicks } from '../../lib/live-clicks';
import { type StatsWindow, WINDOW_FIELDS, windowSearch } from '../../lib/stats-window';
import { EmptyState, LoadFailed, Loading } from '../feedback';
import { LiveFeed } from '../live-feed';
import { Breakdowns } from './breakdowns';
import { SeriesChart } from './series-chart';
import { Totals } from './totals';
import { WindowPicker } from './window-picker';

export interface StatsViewProps {
  stats: Resource<Stats> | Resource<WorkspaceStats>;
  window: StatsWindow;
  onWindow(window: StatsWindow): void;
  /** What to do when the window has no clicks (share the link). */
  empty: ComponentChildren;
  /** Panels after the chart (top links). */
  children?: ComponentChildren;
  /** Panels after the breakdowns (the raw clicks). */
  after?: ComponentChildren;
  /** Clicks as they are recorded: a feed under the totals, and the totals move with them. */
  live?: LiveClicks;
  /** `live.mark()` when the shown statistics arrived (what they already count). */
  liveMark?: number;
  /** The feed's lines name their link (the workspace's page). */
  liveShowsLink?: boolean;
  /** A link's rules as they are now, for its rule breakdown. */
  rules?: readonly Rule[];
}

/**
 * The live clicks the loaded totals do not count yet, when the window runs up to now (no `to`
 * given: the API then counts up to the moment it answered).
 */
function liveCount(live: LiveClicks | undefined, mark: number | undefined, w: StatsWindow, data: Stats | undefined) {
  if (!live || mark === undefined || !data || w.to) return 0;
  return arrivedAfter(live.received, mark).filter((r) => r.click.timestamp >= data.range.from).length;
}

export function StatsView(props: StatsViewProps) {
  const { stats, window: w, onWindow, empty, children, after, live, liveMark, liveShowsLink, rules } = props;
  const error = stats.error;
  const aboutWindow = error !== null && (WINDOW_FIELDS as readonly string[]).includes(error.field ?? '');
  const data = aboutWindow ? undefined : stats.data;
  const since = liveCount(live, liveMark, w, data);
  return (
    <>
      <WindowPicker window={w} counted={stats.data?.range} error={error} onChange={onWindow} />
      {error && !aboutWindow && <LoadFailed error={error} retry={stats.reload} />}
      <Loading active={stats.loading} />
      {data && (
        <div class="stats" aria-busy={stats.loading}>
          <Totals stats={data} live={since} moving={live?.status === 'live' && !w.to} />
          {live && <LiveFeed live={live} showLink={liveShowsLink} />}
          {data.totals.clicks === 0 ? (
            since > 0 ? null : (
              <EmptyState title="No clicks in this range yet">
                {empty}
                {data.totals.bots > 0 && !data.range.bots && (
                  <p>
                    {data.totals.bots === 1 ? 'One bot hit was' : `${data.totals.bots} bot hits were`} left out: tick
                    Include bots to count them.
                  </p>
                )}
              </EmptyState>
            )
          ) : (
            <>
              <SeriesChart stats={data} />
              {children}
              <Breakdowns stats={data} search={windowSearch(w)} rules={rules} />
              {after}
            </>
          )}
        </div>
      )}
    </>
  );
}
