/**
 * The dashboard's world map (scripts/dashboard/world-map.ts): read back with a strict tokenizer
 * (only the elements and attributes the map may have), rendered by librsvg, and its path data
 * decoded to points so the geometry is checked too: every point inside the viewBox, no country
 * wound inside out (it would cover the whole map), land about the share of the globe it has.
 */
import { beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { geoEqualEarth, geoPath } from 'd3-geo';
import { CompactPath, formatTenths } from '../../scripts/dashboard/svg-path';
import { buildWorldMapSvg, escapeXml, MAP_WIDTH } from '../../scripts/dashboard/world-map';
import { tool } from '../helpers/proc';

type Element = { name: string; attrs: Record<string, string>; text: string };

const ALLOWED_ATTRS: Record<string, string[]> = {
  svg: ['xmlns', 'viewBox', 'role', 'aria-label'],
  path: ['id', 'data-code', 'class', 'd'],
  title: [],
};

/**
 * Tokenizes the whole document (a character the grammar does not expect fails) and checks
 * nesting: <svg> holding <path>s, each holding one <title>. Returns the elements in order.
 */
function parse(svg: string): Element[] {
  const token = /<(\/?)([a-z]+)((?:\s+[a-zA-Z-]+="[^"<&]*")*)\s*>|([^<]+)/y;
  const elements: Element[] = [];
  const stack: Element[] = [];
  let pos = 0;
  while (pos < svg.length) {
    token.lastIndex = pos;
    const m = token.exec(svg);
    if (!m) break;
    pos = token.lastIndex;
    const [, closing, name, attrText, text] = m;
    if (text !== undefined) {
      if (stack.at(-1)?.name === 'title') stack.at(-1)!.text += text;
      else expect(text.trim()).toBe('');
    } else if (closing) {
      expect(stack.pop()?.name).toBe(name!);
    } else {
      const attrs = Object.fromEntries([...attrText!.matchAll(/([a-zA-Z-]+)="([^"]*)"/g)].map((a) => [a[1]!, a[2]!]));
      const el = { name: name!, attrs, text: '' };
      const parent = { svg: undefined, path: 'svg', title: 'path' }[name!];
      expect(stack.at(-1)?.name).toBe(parent!);
      elements.push(el);
      stack.push(el);
    }
  }
  expect(pos).toBe(svg.length);
  expect(stack).toEqual([]);
  return elements;
}

/** Decodes the map's path data (`m`, relative pairs, `z`) to rings of absolute points in tenths. */
function rings(d: string): [number, number][][] {
  expect(d).toMatch(/^m[-.\d mz]*z$/);
  const tokens = d.match(/[mz]|-?(?:\d+(?:\.\d)?|\.\d)/g) ?? [];
  // Every character but separators belongs to a token: nothing was misread.
  expect(tokens.join('')).toBe(d.replaceAll(' ', ''));
  const out: [number, number][][] = [];
  let start: [number, number] = [0, 0];
  let ring: [number, number][] = [];
  let moving = false;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t === 'm') moving = true;
    else if (t === 'z') {
      out.push(ring);
      ring = [];
    } else {
      const dx = Math.round(Number(t) * 10);
      const dy = Math.round(Number(tokens[++i]) * 10);
      const [x, y] = moving ? start : ring.at(-1)!;
      const p: [number, number] = [x + dx, y + dy];
      if (moving) start = p;
      ring.push(p);
      moving = false;
    }
  }
  return out;
}

/** Shoelace area in tenths², signed by winding. */
function signedArea(ring: [number, number][]): number {
  let sum = 0;
  for (let i = 0; i < ring.length; i++) {
    const [x0, y0] = ring[i]!;
    const [x1, y1] = ring[(i + 1) % ring.length]!;
    sum += x0 * y1 - x1 * y0;
  }
  return sum / 2;
}

const decode = (s: string) => s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)));

let svg: string;
let elements: Element[];
let countries: Element[];
let byCode: Map<string, Element>;

beforeAll(() => {
  svg = buildWorldMapSvg();
  elements = parse(svg);
  countries = elements.filter((e) => e.name === 'path' && 'data-code' in e.attrs);
  byCode = new Map(countries.map((e) => [e.attrs['data-code']!, e]));
});

describe('world map SVG', () => {
  test('is well-formed, with one accessible root', () => {
    const roots = elements.filter((e) => e.name === 'svg');
    expect(roots).toHaveLength(1);
    expect(svg.startsWith('<svg ')).toBe(true);
    expect(roots[0]!.attrs).toMatchObject({
      xmlns: 'http://www.w3.org/2000/svg',
      role: 'img',
      'aria-label': 'World map',
    });
    expect(roots[0]!.attrs.viewBox).toMatch(/^-?\d+(\.\d)? -?\d+(\.\d)? \d+(\.\d)? \d+(\.\d)?$/);
  });

  test('librsvg renders it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'slink-map-'));
    try {
      writeFileSync(join(dir, 'map.svg'), svg);
      const p = await tool(['rsvg-convert', '-w', '600', join(dir, 'map.svg'), '-o', join(dir, 'map.png')]);
      expect({ exitCode: p.code, stderr: p.stderr }).toEqual({ exitCode: 0, stderr: '' });
      expect(statSync(join(dir, 'map.png')).size).toBeGreaterThan(1000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('one path per alpha-2 code: id, data-code, class, a non-empty escaped title', () => {
    expect(countries.length).toBeGreaterThan(230);
    expect(byCode.size).toBe(countries.length);
    for (const e of countries) {
      const code = e.attrs['data-code']!;
      expect(code).toMatch(/^[A-Z]{2}$/);
      expect(e.attrs).toMatchObject({ id: `c-${code}`, class: 'country' });
      expect(e.attrs.d!.length).toBeGreaterThan(4);
    }
    const titles = elements.filter((e) => e.name === 'title');
    expect(titles).toHaveLength(elements.filter((e) => e.name === 'path').length);
    for (const t of titles) {
      expect(t.text).toMatch(/^([^<>&"']|&#\d+;)+$/);
      expect(decode(t.text).trim()).not.toBe('');
    }
  });

  test('has the small countries 110m lacks, the big ones, Kosovo and the split territories', () => {
    const names: Record<string, string> = {
      SG: 'Singapore',
      MT: 'Malta',
      BH: 'Bahrain',
      HK: 'Hong Kong',
      GB: 'United Kingdom',
      US: 'United States of America',
      FR: 'France',
      XK: 'Kosovo',
      CX: 'Christmas Island',
      CC: 'Cocos (Keeling) Islands',
      SO: 'Somalia',
      CY: 'Cyprus',
      CI: "Cote d'Ivoire",
      GF: 'French Guiana',
      RE: 'Reunion',
      SJ: 'Svalbard and Jan Mayen',
      BQ: 'Bonaire, Sint Eustatius and Saba',
      TK: 'Tokelau',
    };
    for (const [code, name] of Object.entries(names)) {
      const title = elements[elements.indexOf(byCode.get(code)!) + 1]!;
      expect({ code, title: decode(title.text) }).toEqual({ code, title: name });
    }
  });

  test('no Antarctica; the shapes without an ISO code are merged or unlinked, never a code of their own', () => {
    expect(byCode.has('AQ')).toBe(false);
    expect(svg).not.toMatch(/ATA|Antarctica/);
    const titles = elements.filter((e) => e.name === 'title').map((e) => decode(e.text));
    for (const merged of ['Somaliland', 'N. Cyprus', 'Indian Ocean Ter.', 'Ashmore and Cartier Is.']) {
      expect(titles).not.toContain(merged);
    }
    const unlinked = elements.filter((e) => e.name === 'path' && !('data-code' in e.attrs));
    expect(unlinked.map((e) => e.attrs)).toEqual([{ class: 'country', d: expect.any(String) }]);
    expect(decode(elements[elements.indexOf(unlinked[0]!) + 1]!.text)).toBe('Siachen Glacier');
  });

  test('territories Natural Earth draws inside another country are split off: each lies outside its parent', () => {
    const bbox = (code: string) => {
      const points = rings(byCode.get(code)!.attrs.d!).flat();
      const xs = points.map((p) => p[0]);
      const ys = points.map((p) => p[1]);
      return { x0: Math.min(...xs), x1: Math.max(...xs), y0: Math.min(...ys), y1: Math.max(...ys) };
    };
    const pairs = [
      ...['GF', 'GP', 'MQ', 'RE', 'YT'].map((c) => ['FR', c]),
      ['NO', 'SJ'],
      ['NL', 'BQ'],
      ['NZ', 'TK'],
      ['CX', 'CC'],
    ];
    for (const [parent, territory] of pairs) {
      const p = bbox(parent!);
      const t = bbox(territory!);
      const [cx, cy] = [(t.x0 + t.x1) / 2, (t.y0 + t.y1) / 2];
      const inside = cx >= p.x0 && cx <= p.x1 && cy >= p.y0 && cy <= p.y1;
      expect({ parent, territory, inside }).toEqual({ parent, territory, inside: false });
    }
  });

  test('no style, script, link or event handler: only the attributes the map is made of', () => {
    expect(svg).not.toMatch(/style|<script|href|javascript:/i);
    for (const e of elements) {
      for (const attr of Object.keys(e.attrs)) expect(ALLOWED_ATTRS[e.name]).toContain(attr);
    }
  });

  test('is deterministic: a second build is byte for byte the same', () => {
    expect(buildWorldMapSvg()).toBe(svg);
  });

  test('geometry: inside the viewBox, nothing inside out, land about a quarter of the globe', () => {
    const [vx, vy, vw, vh] = elements[0]!.attrs.viewBox!.split(' ').map((v) => Math.round(Number(v) * 10));
    const oval = geoPath(geoEqualEarth().fitWidth(MAP_WIDTH, { type: 'Sphere' })).area({ type: 'Sphere' }) * 100;
    let land = 0;
    for (const e of elements.filter((e) => e.name === 'path')) {
      const rs = rings(e.attrs.d!);
      for (const [x, y] of rs.flat()) {
        expect(x >= vx! && x <= vx! + vw! && y >= vy! && y <= vy! + vh!).toBe(true);
      }
      // Holes wind against their exterior: the net area is the land. Russia is 3% of the globe.
      const area = Math.abs(rs.reduce((sum, r) => sum + signedArea(r), 0));
      expect({ code: e.attrs['data-code'], share: area / oval < 0.05 }).toEqual({
        code: e.attrs['data-code'],
        share: true,
      });
      land += area;
    }
    // Land without Antarctica: 135 of the Earth's 510 million km² (26%); Equal Earth keeps areas.
    expect(land / oval).toBeGreaterThan(0.24);
    expect(land / oval).toBeLessThan(0.28);
  });
});

describe('escapeXml', () => {
  test('escapes what XML text and attributes must not hold raw', () => {
    expect(escapeXml(`Bosnia & Herzegovina <"x"> 'y'`)).toBe(
      'Bosnia &#38; Herzegovina &#60;&#34;x&#34;&#62; &#39;y&#39;',
    );
  });
});

describe('CompactPath', () => {
  test('formats tenths as the shortest decimal', () => {
    expect([0, 5, -5, 10, -12, 30, 1234, -7].map(formatTenths)).toEqual([
      '0',
      '.5',
      '-.5',
      '1',
      '-1.2',
      '3',
      '123.4',
      '-.7',
    ]);
  });

  test('writes relative path data that decodes to the snapped points', () => {
    // Random points, with runs of repeats and numbers of every shape, in several rings.
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const path = new CompactPath();
    const expected: [number, number][][] = [];
    for (let r = 0; r < 20; r++) {
      const ring: [number, number][] = [];
      let [x, y] = [0, 0];
      for (let i = 0; i < 30; i++) {
        // Some points repeat the last one exactly, some only once snapped (0.01 apart).
        const repeat = i > 0 && next() < 0.2;
        if (!repeat || next() < 0.5) {
          x = repeat ? x + 0.01 : next() * 2000 - 500;
          y = repeat ? y : next() * 30 - 15;
        }
        if (i === 0) path.moveTo(x, y);
        else path.lineTo(x, y);
        const p: [number, number] = [Math.round(x * 10), Math.round(y * 10)];
        const last = ring.at(-1);
        if (!last || last[0] !== p[0] || last[1] !== p[1]) ring.push(p);
      }
      path.closePath();
      expected.push(ring);
    }
    expect(rings(path.take())).toEqual(expected);
  });

  test('drops rings smaller than the grid unless they are all a shape has', () => {
    const path = new CompactPath();
    path.moveTo(0, 0);
    path.lineTo(0.01, 0.01);
    path.lineTo(0.02, 0);
    path.closePath();
    expect(path.take()).toBe('m0 0z');
    path.moveTo(0, 0);
    path.lineTo(0.01, 0.01);
    path.closePath();
    path.moveTo(10, 10);
    path.lineTo(11, 10);
    path.lineTo(11, 11);
    path.closePath();
    expect(path.take()).toBe('m10 10 1 0 0 1z');
  });
});
