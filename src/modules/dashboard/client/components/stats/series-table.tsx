/** The chart's numbers as a table: one row per hour or day of the window (UTC). */
import type { Stats } from '../../api/types';
import { formatNumber, formatUtc } from '../../lib/format';
import { ScrollBox } from '../scroll-box';

export function SeriesTable({ id, stats }: { id: string; stats: Stats }) {
  const daily = stats.interval === 'day';
  return (
    <ScrollBox class="series-table" id={id} label="Chart as a table">
      <table>
        <caption class="sr-only">Clicks and unique visitors per {daily ? 'day' : 'hour'} (UTC)</caption>
        <thead>
          <tr>
            <th scope="col">{daily ? 'Day (UTC)' : 'Hour (UTC)'}</th>
            <th scope="col" class="num">
              Clicks
            </th>
            <th scope="col" class="num">
              Unique visitors
            </th>
          </tr>
        </thead>
        <tbody>
          {stats.series.map((p) => (
            <tr key={p.t}>
              <th scope="row">{formatUtc(p.t, daily ? 'day' : 'minute', false)}</th>
              <td class="num">{formatNumber(p.clicks)}</td>
              <td class="num">{formatNumber(p.uniques)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}
