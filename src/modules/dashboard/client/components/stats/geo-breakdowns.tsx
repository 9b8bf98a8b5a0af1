/** Where the clicks came from: countries (on the world map and as a table) and cities. */
import type { Stats } from '../../api/types';
import { breakdownLabel, countryName } from '../../lib/stats-labels';
import { BreakdownTable } from './breakdown-table';
import { GeoAttribution } from './geo-attribution';
import { WorldMap } from './world-map';

const NO_GEO = 'No locations in this range: clicks from private or unknown addresses have none.';

export function GeoBreakdowns({ stats }: { stats: Stats }) {
  const total = stats.totals.clicks;
  const notCollected = new Set(stats.notCollected);
  // Not collected: every click lacks the value now; an unknown bar would say nothing.
  const country = stats.breakdowns.country.filter((c) => !notCollected.has('country') || c.value !== null);
  const city = stats.breakdowns.city.filter((c) => !notCollected.has('city') || c.value !== null);
  return (
    <>
      <BreakdownTable
        id="bd-country"
        title="Countries"
        column="Country"
        total={total}
        empty={NO_GEO}
        notCollected={notCollected.has('country') ? 'country' : undefined}
        lead={notCollected.has('country') ? undefined : <WorldMap countries={country} />}
        rows={country.map((c) => ({ key: c.value ?? '', label: breakdownLabel('country', c.value), clicks: c.clicks }))}
      >
        <GeoAttribution />
      </BreakdownTable>
      <BreakdownTable
        id="bd-city"
        title="Cities"
        column="City"
        total={total}
        empty={NO_GEO}
        notCollected={notCollected.has('city') ? 'city' : undefined}
        rows={city.map((c) => ({
          key: `${c.country ?? ''}|${c.value ?? ''}`,
          label: breakdownLabel('city', c.value),
          note: c.country === null ? undefined : countryName(c.country),
          clicks: c.clicks,
        }))}
      >
        <GeoAttribution />
      </BreakdownTable>
    </>
  );
}
