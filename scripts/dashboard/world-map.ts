/**
 * The dashboard's world map, made at build time: nothing is fetched at run time (no tiles), so
 * the country breakdown is drawn on this static SVG. Source: Natural Earth 1:50m countries
 * (world-atlas, 241 features; 1:110m lacks SG, MT, BH, HK), projected with Equal Earth
 * (equal-area: a country's share of ink matches its share of land), Antarctica left out (it
 * would be the largest shape and gets no clicks). One <path> per ISO 3166-1 alpha-2 code, the
 * code DB-IP reports, with the English name as its <title>. No style, script or link inside:
 * the dashboard's own CSS styles `.country` and `[data-code]` (its CSP forbids inline styles).
 * Same input, same bytes: the output is sorted by code and every number is snapped to 0.1.
 * Borders are Natural Earth's as drawn (its de facto view: Crimea, for one, lies inside Russia);
 * the only changes are the ones world-codes.ts lists.
 */
import { readFileSync } from 'node:fs';
import { geoArea, geoEqualEarth, geoPath } from 'd3-geo';
import type { FeatureCollection, MultiPolygon, Polygon } from 'geojson';
import { feature, merge } from 'topojson-client';
import { presimplify, simplify } from 'topojson-simplify';
import { CompactPath } from './svg-path';
import { type CountryGeometry, codeOf, DROPPED, nameOf, splitTerritories, type World } from './world-codes';

type Shape = Polygon | MultiPolygon;
/** code is '' for an unlinked shape. */
type Country = { code: string; name: string; shape: Shape };

/** Width of the whole Equal Earth oval in user units; the map's grid is 0.1 of a unit. */
export const MAP_WIDTH = 1000;

/**
 * Simplification (Visvalingam, topology-preserving so neighbours keep one shared border): a
 * point goes when the triangle it makes with its neighbours covers less than this many square
 * user units once projected. 0.1 keeps the map at about 165 KB (55 KB gzipped) and looks the
 * same as 0.03 (235 KB) when zoomed to 6x; unsimplified it is 480 KB.
 */
export const MIN_TRIANGLE_AREA = 0.1;

const projection = geoEqualEarth().fitWidth(MAP_WIDTH, { type: 'Sphere' });

function loadWorld(): World {
  const file = Bun.resolveSync('world-atlas/countries-50m.json', import.meta.dir);
  return JSON.parse(readFileSync(file, 'utf8')) as World;
}

/**
 * Visvalingam keeps an arc's two ends and may drop everything between, which would collapse
 * every island (a closed arc) to a point: Singapore, Malta and Bahrain would vanish. So each arc
 * keeps its last-eliminated interior point, a closed arc its last two: every ring stays at
 * least a triangle, and rings too small for the grid are dropped later, when drawn.
 */
function simplified(world: World): World {
  const weighed = presimplify(world, ([a, b, c]) => {
    const [ax, ay] = projection(a)!;
    const [bx, by] = projection(b)!;
    const [cx, cy] = projection(c)!;
    return Math.abs((bx - ax) * (cy - ay) - (cx - ax) * (by - ay)) / 2;
  });
  for (const arc of weighed.arcs) {
    const first = arc[0]!;
    const last = arc.at(-1)!;
    const keep = first[0] === last[0] && first[1] === last[1] ? 2 : 1;
    const interior = arc.slice(1, -1).sort((p, q) => q[2]! - p[2]!);
    for (const p of interior.slice(0, keep)) p[2] = Number.POSITIVE_INFINITY;
  }
  return simplify(weighed, MIN_TRIANGLE_AREA);
}

function shapeOf(world: World, g: CountryGeometry): Shape {
  return g.type === 'Polygon' ? feature(world, g).geometry : feature(world, g).geometry;
}

/** The countries of the map, sorted by code, and the unlinked shapes. */
export function worldCountries(): { linked: Country[]; unlinked: Country[] } {
  const world = simplified(loadWorld());
  const byCode = new Map<string, CountryGeometry[]>();
  const unlinked: Country[] = [];
  for (const g of world.objects.countries.geometries) {
    if (g.type !== 'Polygon' && g.type !== 'MultiPolygon') throw new Error(`world map: unexpected ${g.type}`);
    const code = codeOf(g);
    if (code === null) {
      unlinked.push({ code: '', name: g.properties?.name ?? '', shape: shapeOf(world, g) });
      continue;
    }
    for (const [c, part] of splitTerritories(world, code, g)) {
      if (!DROPPED.has(c)) byCode.set(c, [...(byCode.get(c) ?? []), part]);
    }
  }
  // Several features share a code (Australia and the Ashmore and Cartier Islands, Somalia and
  // Somaliland, Cyprus and N. Cyprus): merge() joins them into one MultiPolygon and removes the
  // borders they share.
  const linked = [...byCode].map(([code, parts]) => ({
    code,
    name: nameOf(code),
    shape: parts.length === 1 ? shapeOf(world, parts[0]!) : merge(world, parts),
  }));
  linked.sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
  for (const c of [...linked, ...unlinked]) assertNotInverted(c);
  return { linked, unlinked };
}

/**
 * d3-geo reads ring order on the sphere: a ring wound the wrong way encloses the rest of the
 * globe and fills the whole map. Russia, the largest country, covers about 3% of the sphere.
 * Simplifying an island down to a triangle can flip it (at MIN_TRIANGLE_AREA 0.2 one of the
 * Bahamas does): fail the build rather than ship a map painted over by one country.
 */
function assertNotInverted(c: Country): void {
  if (geoArea(c.shape) > Math.PI) {
    throw new Error(`world map: ${c.code || c.name} is wound inside out (lower MIN_TRIANGLE_AREA?)`);
  }
}

/** Escapes text for XML content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** The viewBox: the drawn countries' projected bounds, widened to the 0.1 grid. */
function viewBoxOf(all: FeatureCollection): string {
  const [[x0, y0], [x1, y1]] = geoPath(projection).bounds(all);
  const left = Math.floor(x0 * 10);
  const top = Math.floor(y0 * 10);
  return [left, top, Math.ceil(x1 * 10) - left, Math.ceil(y1 * 10) - top].map((t) => t / 10).join(' ');
}

export function buildWorldMapSvg(): string {
  const { linked, unlinked } = worldCountries();
  const all: FeatureCollection = {
    type: 'FeatureCollection',
    features: [...linked, ...unlinked].map((c) => ({ type: 'Feature', properties: {}, geometry: c.shape })),
  };
  const context = new CompactPath();
  const path = geoPath(projection, context);
  const d = (c: Country) => {
    path(c.shape);
    return context.take();
  };
  const title = (c: Country) => `<title>${escapeXml(c.name)}</title>`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${viewBoxOf(all)}" role="img" aria-label="World map">`,
    ...linked.map((c) => `<path id="c-${c.code}" data-code="${c.code}" class="country" d="${d(c)}">${title(c)}</path>`),
    ...unlinked.map((c) => `<path class="country" d="${d(c)}">${title(c)}</path>`),
    '</svg>\n',
  ].join('\n');
}
