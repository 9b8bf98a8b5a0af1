/** The window's totals, and which window that is (UTC, widened to whole hours by the API). */
import type { Stats } from '../../api/types';
import { formatNumber, formatUtc } from '../../lib/format';

/** `live`: human clicks recorded since these numbers were read (the live feed's). */
export function Totals({ stats, live = 0 }: { stats: Stats; live?: number }) {
  const { totals, range } = stats;
  const unit = stats.interval === 'day' ? 'day' : 'minute';
  const numbers: [string, number][] = [
    ['Clicks', totals.clicks + live],
    ['Unique visitors', totals.uniques],
    ['Bot hits', totals.bots],
  ];
  return (
    <section class="panel" aria-label="Totals">
      <dl class="numbers totals">
        {numbers.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{formatNumber(value)}</dd>
          </div>
        ))}
      </dl>
      <p class="hint">
        {formatUtc(range.from, unit, false)} to {formatUtc(range.to, unit)}
        {live > 0 && `, and ${live === 1 ? 'one click' : `${formatNumber(live)} clicks`} since`}.{' '}
        {range.bots ? 'Bot hits are counted in the clicks.' : 'Bot hits are left out of every other number.'}
      </p>
    </section>
  );
}
