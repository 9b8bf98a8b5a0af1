/**
 * Which ISO 3166-1 alpha-2 code (the code DB-IP reports for an address) each Natural Earth
 * feature of the world map gets. Most carry an ISO numeric id that i18n-iso-countries maps;
 * the rest are decided one by one below. A feature or id that is not covered fails the build,
 * so a new world-atlas cannot slip an unnamed shape in.
 */
import { geoCentroid } from 'd3-geo';
import countries from 'i18n-iso-countries';
import en from 'i18n-iso-countries/langs/en.json' with { type: 'json' };
import { feature } from 'topojson-client';
import type * as Topo from 'topojson-specification';

export type CountryGeometry = Topo.Polygon<{ name: string }> | Topo.MultiPolygon<{ name: string }>;
export type World = Topo.Topology<{ countries: Topo.GeometryCollection<{ name: string }> }>;

countries.registerLocale(en);

/** Antarctica (ISO numeric 010): dropped, it would be the largest shape and gets no clicks. */
export const DROPPED = new Set(['AQ']);

/**
 * Natural Earth features that have no ISO numeric id, by their Natural Earth name:
 * - Kosovo: XK, the user-assigned code DB-IP (and most geo databases) report for it.
 * - Somaliland, N. Cyprus: no ISO code; geo databases report their addresses as SO and CY, so
 *   they are dissolved into Somalia and Cyprus (one shape each, inner border removed).
 * - Siachen Glacier: disputed, no code, no addresses: drawn (else a hole shows between India,
 *   Pakistan and China) but unlinked (null): a `.country` path with neither id nor data-code.
 * - Indian Ocean Ter.: Christmas Island (CX) and the Cocos (Keeling) Islands, two Australian
 *   territories with codes of their own: CX here, the Cocos split off by TERRITORIES.
 */
const WITHOUT_ID: Record<string, string | null> = {
  Kosovo: 'XK',
  Somaliland: 'SO',
  'N. Cyprus': 'CY',
  'Siachen Glacier': null,
  'Indian Ocean Ter.': 'CX',
};

/** west, south, east, north in degrees. */
type Box = [number, number, number, number];

/**
 * Territories with an ISO code of their own (DB-IP reports their addresses by it) that Natural
 * Earth draws as islands of another country: France's overseas departments, Norway's Svalbard
 * and Jan Mayen, the Caribbean Netherlands, New Zealand's Tokelau. Each polygon of the parent
 * whose centroid lies in one of a territory's boxes becomes that territory's path, so a click
 * from Réunion lights Réunion, not France. Mainland shapes lie far outside every box.
 */
const TERRITORIES: { from: string; code: string; boxes: Box[] }[] = [
  { from: 'FR', code: 'GF', boxes: [[-55, 2, -51, 6]] },
  { from: 'FR', code: 'GP', boxes: [[-62, 15.8, -60.9, 16.6]] },
  { from: 'FR', code: 'MQ', boxes: [[-61.3, 14.3, -60.7, 15]] },
  { from: 'FR', code: 'RE', boxes: [[55, -21.5, 56, -20.8]] },
  { from: 'FR', code: 'YT', boxes: [[44.9, -13.1, 45.4, -12.5]] },
  // Jan Mayen; Svalbard with Bear Island (mainland Norway ends at 71.2°N).
  {
    from: 'NO',
    code: 'SJ',
    boxes: [
      [-10, 70.5, -7, 71.5],
      [10, 74, 35, 81],
    ],
  },
  { from: 'NL', code: 'BQ', boxes: [[-69, 12, -62.5, 18]] },
  { from: 'NZ', code: 'TK', boxes: [[-173, -10, -171, -8]] },
  { from: 'CX', code: 'CC', boxes: [[96, -13, 97.5, -11.5]] },
];

export function nameOf(code: string): string {
  const name = countries.getName(code, 'en');
  if (!name) throw new Error(`world map: no English name for ${code}`);
  return name;
}

/** The feature's code, or null for a shape drawn but unlinked. */
export function codeOf(g: CountryGeometry): string | null {
  const neName = g.properties?.name ?? '';
  if (g.id !== undefined) {
    const code = countries.numericToAlpha2(g.id);
    if (!code) throw new Error(`world map: unknown ISO numeric id ${g.id} (${neName})`);
    return code;
  }
  const code = WITHOUT_ID[neName];
  if (code === undefined) throw new Error(`world map: feature without an id not handled: ${neName}`);
  return code;
}

/** The feature's polygons by code: its own, and those of the TERRITORIES drawn inside it. */
export function splitTerritories(world: World, code: string, g: CountryGeometry): [string, CountryGeometry][] {
  const rules = TERRITORIES.filter((t) => t.from === code);
  if (rules.length === 0) return [[code, g]];
  const parts = new Map<string, number[][][]>();
  for (const arcs of g.type === 'Polygon' ? [g.arcs] : g.arcs) {
    const [lon, lat] = geoCentroid(feature(world, { type: 'Polygon', arcs }));
    const inside = ([w, s, e, n]: Box) => lon >= w && lon <= e && lat >= s && lat <= n;
    const to = rules.find((t) => t.boxes.some(inside))?.code ?? code;
    parts.set(to, [...(parts.get(to) ?? []), arcs]);
  }
  for (const c of [code, ...rules.map((t) => t.code)]) {
    if (!parts.has(c)) throw new Error(`world map: no polygon of ${code} left for ${c}`);
  }
  return [...parts].map(([c, arcs]) => [c, { type: 'MultiPolygon', arcs, properties: g.properties }]);
}
