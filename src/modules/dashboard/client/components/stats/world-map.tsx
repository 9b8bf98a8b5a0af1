/**
 * The world map of the country breakdown. The SVG is our own build output (one <path> per
 * country code, scripts/dashboard/world-map.ts), fetched once from the same origin and put into
 * the page as a trusted asset; no user data ever goes into its markup. Countries are coloured by
 * CSS classes (q1..q5, see lib/map-buckets.ts), and each <title> (the tooltip) gains its count.
 * The countries table beside it is the accessible alternative (about 34 countries are too small
 * to see, four have no shape at all).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { assetUrl } from '../../lib/assets';
import { formatNumber } from '../../lib/format';
import { type MapColours, mapColours } from '../../lib/map-buckets';

let mapText: Promise<string> | undefined;

/** The map's SVG text, fetched on first use and then shared by every page that shows it. */
function loadMap(): Promise<string> {
  const url = assetUrl('world-map.svg');
  if (!url) return Promise.reject(new Error('this build has no world map'));
  mapText ??= fetch(url).then((r) => (r.ok ? r.text() : Promise.reject(new Error(`world map: ${r.status}`))));
  mapText.catch(() => {
    mapText = undefined; // a failed fetch is tried again next time
  });
  return mapText;
}

function parseMap(text: string): SVGSVGElement {
  const parsed = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
  if (parsed.localName !== 'svg') throw new Error('world map: not an SVG');
  return document.importNode(parsed, true) as unknown as SVGSVGElement;
}

const BUCKET_CLASSES = ['q1', 'q2', 'q3', 'q4', 'q5'];

function paint(svg: SVGSVGElement, colours: MapColours, counts: Map<string, number>): void {
  for (const path of svg.querySelectorAll<SVGPathElement>('path[data-code]')) {
    const code = path.dataset.code ?? '';
    const bucket = colours.byCode.get(code);
    path.classList.remove(...BUCKET_CLASSES);
    if (bucket) path.classList.add(`q${bucket}`);
    const title = path.querySelector('title');
    if (!title) continue;
    title.dataset.name ??= title.textContent ?? code;
    const clicks = counts.get(code);
    title.textContent = clicks ? `${title.dataset.name}: ${formatNumber(clicks)} clicks` : title.dataset.name;
  }
}

export function WorldMap({ countries }: { countries: { value: string | null; clicks: number }[] }) {
  const box = useRef<HTMLDivElement>(null);
  const [svg, setSvg] = useState<SVGSVGElement | null>(null);
  const [failed, setFailed] = useState(false);
  const colours = mapColours(countries);

  useEffect(() => {
    let gone = false;
    loadMap()
      .then(parseMap)
      .then(
        (node) => {
          if (gone || !box.current) return;
          node.setAttribute('aria-label', 'World map of clicks by country; the countries table has the numbers');
          box.current.replaceChildren(node);
          setSvg(node);
        },
        () => !gone && setFailed(true),
      );
    return () => {
      gone = true;
    };
  }, []);

  useEffect(() => {
    if (svg) paint(svg, colours, new Map(countries.map((c) => [c.value ?? '', c.clicks])));
  }, [svg, countries]);

  if (failed) return <p class="hint">The world map could not be loaded; the table lists every country.</p>;
  return (
    <figure class="world-map">
      <div class="map-box" ref={box} />
      {colours.ranges.length > 0 && (
        <figcaption>
          <ul class="map-legend" aria-label="Map colours">
            {colours.ranges.map((r) => (
              <li key={r.bucket}>
                <span class={`swatch q${r.bucket}`} aria-hidden="true" />
                {r.min === r.max ? formatNumber(r.min) : `${formatNumber(r.min)}–${formatNumber(r.max)}`}{' '}
                {r.max === 1 ? 'click' : 'clicks'}
              </li>
            ))}
          </ul>
        </figcaption>
      )}
    </figure>
  );
}
