/** The window's totals, and which window that is (UTC, widened to whole hours by the API). */
import type { Stats } from '../../api/types';
import { formatNumber, formatUtc } from '../../lib/format';
import { LiveMark, LiveMarkHint } from '../live-feed';

/** What the Opted out number is, in a sentence under the numbers. */
const OPTED_OUT =
  'Opted out: counted in the clicks, never profiled (the visitor sent Global Privacy Control or another signal this server honours).';

/**
 * `live`: human clicks recorded since these numbers were read (the live feed's); `moving`: the
 * live stream is open and adds them (the window runs up to now), so `Clicks` is marked.
 */
export function Totals({ stats, live = 0, moving = false }: { stats: Stats; live?: number; moving?: boolean }) {
  const { totals, range } = stats;
  const unit = stats.interval === 'day' ? 'day' : 'minute';
  // [label, value, moves with the live clicks]
  const numbers: [string, number, boolean][] = [
    ['Clicks', totals.clicks + live, true],
    ['Unique visitors', totals.uniques, false],
    ['Bot hits', totals.bots, false],
    ['Opted out', totals.optedOut, false],
  ];
  return (
    <section class="panel" aria-label="Totals">
      <dl class="numbers totals">
        {numbers.map(([label, value, moves]) => (
          <div key={label}>
            <dt>
              {label}
              {moving && moves && <LiveMark />}
            </dt>
            <dd>{formatNumber(value)}</dd>
          </div>
        ))}
      </dl>
      {moving && <LiveMarkHint which="Clicks moves" />}
      <p class="hint">
        {formatUtc(range.from, unit, false)} to {formatUtc(range.to, unit)}
        {live > 0 && `, and ${live === 1 ? 'one click' : `${formatNumber(live)} clicks`} since`}.{' '}
        {range.bots ? 'Bot hits are counted in the clicks.' : 'Bot hits are left out of every other number.'}{' '}
        {OPTED_OUT}
      </p>
    </section>
  );
}
