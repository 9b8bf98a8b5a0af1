/**
 * A link's raw clicks in the window, newest first, a page (50) at a time with the API's cursor,
 * and the same clicks as a CSV download. Every value is shown as text: referrers, variant codes
 * and places come from whoever clicked.
 */
import { CLICKS_PAGE_SIZE, exportCsvUrl, listClicks } from '../../api/stats';
import type { Click } from '../../api/types';
import { EmptyState, LoadFailed, Loading } from '../../components/feedback';
import { ScrollBox } from '../../components/scroll-box';
import { formatUtc } from '../../lib/format';
import { usePagedList } from '../../lib/paged';
import { breakdownLabel, countryName } from '../../lib/stats-labels';
import { type StatsWindow, windowSearch } from '../../lib/stats-window';

const COLUMNS = ['Time (UTC)', 'Variant', 'Rule', 'Place', 'Device', 'Referrer', 'Traffic', 'Language', 'Bot'];

const joined = (...parts: (string | null)[]) => parts.filter((p) => p !== null && p !== '').join(' · ') || 'Unknown';

function place(c: Click): string {
  if (c.country === null) return 'Unknown';
  return c.city ? `${c.city}, ${countryName(c.country)}` : countryName(c.country);
}

function ClickRow({ click: c }: { click: Click }) {
  return (
    <tr>
      <td>{formatUtc(c.timestamp, 'second', false)}</td>
      <td>{c.variantCode === null ? '—' : c.variantKnown ? c.variantCode : `${c.variantCode} (unrecognised)`}</td>
      <td>{c.rule === null ? '—' : `Rule ${c.rule + 1}`}</td>
      <td>{place(c)}</td>
      <td>{joined(c.device && breakdownLabel('device', c.device), c.os, c.browser)}</td>
      <td>{breakdownLabel('referrer', c.referrer)}</td>
      <td>{breakdownLabel('trafficType', c.trafficType)}</td>
      <td>{breakdownLabel('language', c.language)}</td>
      <td>{c.bot ? 'Bot' : 'No'}</td>
    </tr>
  );
}

export function ClicksList({ linkId, slug, window: w }: { linkId: string; slug: string; window: StatsWindow }) {
  const key = `${linkId}${windowSearch(w)}`;
  const list = usePagedList((cursor) => listClicks(linkId, w, cursor), key);
  return (
    <section class="panel" aria-labelledby="clicks-title">
      <div class="panel-head">
        <h2 id="clicks-title">Clicks</h2>
        <a class="button small secondary" href={exportCsvUrl(linkId, w)} download={`${slug}-clicks.csv`}>
          Download CSV
        </a>
      </div>
      <p class="hint">
        Every click in this range, newest first, {CLICKS_PAGE_SIZE} at a time. The CSV has all of them, with every
        field; its <code>rule</code> column counts as the API does, from 0: rule 1 is 0.
      </p>
      {list.items.length > 0 && (
        <ScrollBox label="Clicks table">
          <table class="clicks-table">
            <thead>
              <tr>
                {COLUMNS.map((c) => (
                  <th key={c} scope="col">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {list.items.map((c) => (
                <ClickRow key={c.id} click={c} />
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
      {list.error && <LoadFailed error={list.error} retry={list.retry} />}
      {!list.loading && !list.error && list.items.length === 0 && (
        <EmptyState title="No clicks in this range">
          <p>Share the short link, or pick a longer range.</p>
        </EmptyState>
      )}
      <Loading active={list.loading} />
      {list.cursor && !list.loading && !list.error && (
        <p class="more">
          <button type="button" class="button secondary" onClick={list.more}>
            Load more clicks
          </button>
        </p>
      )}
    </section>
  );
}
