/**
 * Clicks and unique visitors over the window, one point per hour or day as the payload's series
 * says. The chart (uPlot, fetched on first use) is a picture for sighted readers; the same
 * numbers are a table behind "Show as table", which screen readers are pointed to.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Stats } from '../../api/types';
import { formatNumber, formatUtc } from '../../lib/format';
import type { Chart, ChartColours } from '../../lib/uplot-chart';
import { SeriesTable } from './series-table';

function useDarkScheme(): boolean {
  const query = useMemo(() => window.matchMedia('(prefers-color-scheme: dark)'), []);
  const [dark, setDark] = useState(query.matches);
  useEffect(() => {
    const changed = () => setDark(query.matches);
    query.addEventListener('change', changed);
    return () => query.removeEventListener('change', changed);
  }, [query]);
  return dark;
}

function coloursOf(el: HTMLElement): ChartColours {
  const css = getComputedStyle(el);
  const v = (name: string) => css.getPropertyValue(name).trim();
  return {
    clicks: v('--chart-clicks'),
    clicksFill: v('--chart-clicks-fill'),
    uniques: v('--chart-uniques'),
    text: v('--muted'),
    grid: v('--border'),
  };
}

export function SeriesChart({ stats }: { stats: Stats }) {
  const box = useRef<HTMLDivElement>(null);
  const [hover, setHover] = useState<number | null>(null);
  const [failed, setFailed] = useState(false);
  const [asTable, setAsTable] = useState(false);
  const dark = useDarkScheme();
  const daily = stats.interval === 'day';

  useEffect(() => {
    let chart: Chart | undefined;
    let observer: ResizeObserver | undefined;
    let gone = false;
    import('../../lib/uplot-chart').then(
      ({ drawChart }) => {
        const el = box.current;
        if (gone || !el) return;
        const data = {
          t: stats.series.map((p) => p.t),
          clicks: stats.series.map((p) => p.clicks),
          uniques: stats.series.map((p) => p.uniques),
        };
        chart = drawChart(el, data, daily ? 'day' : 'hour', coloursOf(el), setHover);
        observer = new ResizeObserver(() => chart?.resize(el.clientWidth));
        observer.observe(el);
      },
      () => setFailed(true),
    );
    return () => {
      gone = true;
      observer?.disconnect();
      chart?.destroy();
      setHover(null);
    };
  }, [stats.series, daily, dark]);

  const point = hover === null ? undefined : stats.series[hover];
  const per = daily ? 'day' : 'hour';
  return (
    <section class="panel" aria-labelledby="chart-title">
      <div class="panel-head">
        <h2 id="chart-title">Clicks per {per} (UTC)</h2>
        <button
          type="button"
          class="button small secondary"
          aria-expanded={asTable}
          aria-controls={asTable ? 'series-table' : undefined}
          onClick={() => setAsTable(!asTable)}
        >
          {asTable ? 'Hide table' : 'Show as table'}
        </button>
      </div>
      <div class="chart-legend" aria-hidden="true">
        <span class="key clicks">Clicks</span>
        <span class="key uniques">Unique visitors</span>
        {point && (
          <span class="chart-point">
            {formatUtc(point.t, daily ? 'day' : 'minute')}: {formatNumber(point.clicks)} clicks,{' '}
            {formatNumber(point.uniques)} unique
          </span>
        )}
      </div>
      <div
        class="stats-chart"
        ref={box}
        role="img"
        aria-label={`Chart of clicks and unique visitors per ${per} (UTC). Show as table lists the numbers.`}
      />
      {failed && <p class="hint">The chart could not be drawn; the table has the same numbers.</p>}
      {(asTable || failed) && <SeriesTable id="series-table" stats={stats} />}
    </section>
  );
}
