/** Where the clicks came from: countries (on the world map and as a table) and cities. */
import type { Stats } from '../../api/types';
import { breakdownLabel, countryName } from '../../lib/stats-labels';
import { BreakdownTable } from './breakdown-table';
import { GeoAttribution } from './geo-attribution';
import { WorldMap } from './world-map';

const NO_GEO = 'No locations in this range: clicks from private or unknown addresses have none.';

export function GeoBreakdowns({ stats }: { stats: Stats }) {
  const { country, city } = stats.breakdowns;
  const total = stats.totals.clicks;
  return (
    <>
      <BreakdownTable
        id="bd-country"
        title="Countries"
        column="Country"
        total={total}
        empty={NO_GEO}
        lead={<WorldMap countries={country} />}
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
