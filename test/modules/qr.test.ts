/**
 * GET /links/{id}/qr.svg: the SVG is rasterised with librsvg (rsvg-convert) at its own size and
 * read back with a real scanner (zbarimg); the quiet zone is measured on the rendered pixels.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { type ApiResult, api, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../helpers/app';
import { engineBlind, forEachEngine } from '../helpers/engines';
import { tool } from '../helpers/proc';
import { expectError } from '../helpers/schema';

const SHORT_HOST = 'https://sl.test';
const SIZES = [96, 256, 2048] as const;
/** Rasterising a 2048 px image and scanning it takes longer than bun's 5 s default on slow machines. */
const SCAN_TIMEOUT = 60_000;
/** 40 characters of the slug alphabet, mixed case, so a scanner that mangles case or symbols fails. */
const LONG_SLUG = 'Summer-Sale_2026-LongCampaignName_abcXYZ';

let slugCounter = 0;

/** A slug no other test of the file uses (the tests share one app per engine). */
function ownSlug(prefix: string): string {
  return `${prefix}-${++slugCounter}`;
}

/** LONG_SLUG with its last characters made unique to the test: still 40 characters, mixed case. */
function ownLongSlug(): string {
  return `${LONG_SLUG.slice(0, 37)}X${String(++slugCounter).padStart(2, '0')}`;
}

let workDir: string;
let fileCounter = 0;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'slink-qr-'));
});
afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

let t: TestApp;
let su: string;
let link: any;
let variant: any;

async function newLink(slug: string): Promise<any> {
  const res = await api(t, 'POST', '/links', {
    key: su,
    body: { destination: 'https://example.com/landing?x=1', slug },
  });
  expect(res.status).toBe(201);
  expect(res.body.shortUrl).toBe(`${SHORT_HOST}/${slug}`);
  return res.body;
}

async function newVariant(linkId: string, code: string, slug: string): Promise<any> {
  const res = await api(t, 'POST', `/links/${linkId}/variants`, { key: su, body: { code } });
  expect(res.status).toBe(201);
  expect(res.body.url).toBe(`${SHORT_HOST}/${slug}/${code}`);
  return res.body;
}

function qrPath(linkId: string, query: Record<string, string> = {}): string {
  const qs = new URLSearchParams(query).toString();
  return `/links/${linkId}/qr.svg${qs ? `?${qs}` : ''}`;
}

async function getQr(
  linkId: string,
  query: Record<string, string> = {},
  opts: { key?: string | null; headers?: Record<string, string> } = {},
): Promise<ApiResult> {
  return api(t, 'GET', qrPath(linkId, query), { key: opts.key === undefined ? su : opts.key, headers: opts.headers });
}

/** A 200 SVG answer: status, media type, caching headers, an SVG root of the given size. */
function expectSvg(res: ApiResult, size: number): void {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type') ?? '').toMatch(/^image\/svg\+xml(\s*;.*)?$/i);
  expectSvgRoot(res.text, size);
}

/** The opening <svg ...> tag of the document (after an optional XML declaration / comments / doctype). */
function svgRoot(text: string): string {
  const body = text.replace(/^\uFEFF?\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*|<!DOCTYPE[^>]*>\s*)*/i, '');
  expect(body.startsWith('<svg')).toBe(true);
  const end = body.indexOf('>');
  expect(end).toBeGreaterThan(0);
  return body.slice(0, end + 1);
}

function attr(tag: string, name: string): string | null {
  const m = tag.match(new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`));
  return m ? (m[1] ?? m[2] ?? '') : null;
}

function expectSvgRoot(text: string, size: number): void {
  const root = svgRoot(text);
  expect(attr(root, 'xmlns')).toBe('http://www.w3.org/2000/svg');
  expect(attr(root, 'width')).toMatch(new RegExp(`^${size}(px)?$`));
  expect(attr(root, 'height')).toMatch(new RegExp(`^${size}(px)?$`));
  const viewBox = attr(root, 'viewBox');
  expect(viewBox).not.toBeNull();
  const nums = viewBox!
    .trim()
    .split(/[\s,]+/)
    .map(Number);
  expect(nums.length).toBe(4);
  for (const n of nums) expect(Number.isFinite(n)).toBe(true);
  expect(nums[2]).toBeGreaterThan(0);
  // A square code in a square image: the viewBox is square too.
  expect(nums[3]).toBe(nums[2]);
  expect(text.trimEnd().endsWith('</svg>')).toBe(true);
}

/** Rasterises the SVG at size x size on white; returns the PNG's path. */
async function rasterise(svg: string, size: number): Promise<string> {
  const n = ++fileCounter;
  const inFile = join(workDir, `qr-${n}.svg`);
  const outFile = join(workDir, `qr-${n}-${size}.png`);
  writeFileSync(inFile, svg);
  const r = await tool(['rsvg-convert', '-w', String(size), '-h', String(size), '-b', 'white', inFile, '-o', outFile]);
  expect({ exitCode: r.code, stderr: r.stderr }).toEqual({ exitCode: 0, stderr: '' });
  return outFile;
}

/** What a real scanner reads off the PNG (stdout only: stderr carries D-Bus noise on some hosts). */
async function scan(png: string): Promise<string> {
  const r = await tool(['zbarimg', '--raw', '-q', png]);
  // exit 0 = at least one symbol, 4 = none found
  expect(r.code).toBe(0);
  return r.stdout.endsWith('\n') ? r.stdout.slice(0, -1) : r.stdout;
}

/** Fetches the SVG, checks it, rasterises it at its own size and scans it. */
async function decodeQr(linkId: string, size: number, variantCode?: string): Promise<string> {
  const query: Record<string, string> = { size: String(size) };
  if (variantCode !== undefined) query.variant = variantCode;
  const res = await getQr(linkId, query);
  expectSvg(res, size);
  return await scan(await rasterise(res.text, size));
}

// ---------------------------------------------------------------------------------------------
// Minimal PNG reader (8-bit, non-interlaced, as rsvg-convert writes) for the quiet-zone check.

interface Raster {
  width: number;
  height: number;
  dark(x: number, y: number): boolean;
}

function readPng(file: string): Raster {
  const buf = readFileSync(file);
  expect([...buf.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  let pos = 8;
  let width = 0;
  let height = 0;
  let bitDepth = 0;
  let colorType = 0;
  let interlace = 0;
  const idat: Buffer[] = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString('ascii', pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      bitDepth = data[8]!;
      colorType = data[9]!;
      interlace = data[12]!;
    } else if (type === 'IDAT') idat.push(Buffer.from(data));
    else if (type === 'IEND') break;
    pos += 12 + len;
  }
  expect({ bitDepth, interlace }).toEqual({ bitDepth: 8, interlace: 0 });
  const channels = ({ 0: 1, 2: 3, 4: 2, 6: 4 } as Record<number, number>)[colorType];
  expect(channels).toBeDefined();
  const bpp = channels!;
  const stride = width * bpp;
  const raw = inflateSync(Buffer.concat(idat));
  expect(raw.length).toBe(height * (stride + 1));
  const px = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const src = y * (stride + 1) + 1;
    const dst = y * stride;
    for (let i = 0; i < stride; i++) {
      const x = raw[src + i]!;
      const a = i >= bpp ? px[dst + i - bpp]! : 0;
      const b = y > 0 ? px[dst - stride + i]! : 0;
      const c = i >= bpp && y > 0 ? px[dst - stride + i - bpp]! : 0;
      let v: number;
      switch (filter) {
        case 0:
          v = x;
          break;
        case 1:
          v = x + a;
          break;
        case 2:
          v = x + b;
          break;
        case 3:
          v = x + ((a + b) >> 1);
          break;
        case 4: {
          const p = a + b - c;
          const pa = Math.abs(p - a);
          const pb = Math.abs(p - b);
          const pc = Math.abs(p - c);
          v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
          break;
        }
        default:
          throw new Error(`PNG filter ${filter}`);
      }
      px[dst + i] = v & 0xff;
    }
  }
  return {
    width,
    height,
    dark(x, y) {
      const o = y * stride + x * bpp;
      const lum = channels! >= 3 ? (px[o]! + px[o + 1]! + px[o + 2]!) / 3 : px[o]!;
      return lum < 128;
    },
  };
}

/**
 * Measures the rendered code: the bounding box of dark pixels, the module size (the top-left
 * finder pattern is 7 modules wide and 7 high) and so the light margin on each side, in modules.
 */
function measureQuietZone(r: Raster) {
  let x0 = r.width,
    y0 = r.height,
    x1 = -1,
    y1 = -1;
  for (let y = 0; y < r.height; y++) {
    for (let x = 0; x < r.width; x++) {
      if (!r.dark(x, y)) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  expect(x1).toBeGreaterThan(x0);
  // run of dark pixels along the finder pattern's top edge (2 px inside) and left edge
  const row = y0 + 2;
  let runX = 0;
  while (x0 + runX < r.width && r.dark(x0 + runX, row)) runX++;
  const col = x0 + 2;
  let runY = 0;
  while (y0 + runY < r.height && r.dark(col, y0 + runY)) runY++;
  const module = (runX + runY) / 14;
  const spanX = (x1 - x0 + 1) / module;
  const spanY = (y1 - y0 + 1) / module;
  return {
    module,
    modules: Math.round(spanX),
    spanX,
    spanY,
    left: x0 / module,
    top: y0 / module,
    right: (r.width - 1 - x1) / module,
    bottom: (r.height - 1 - y1) / module,
  };
}

async function expectQuietZone(svg: string, size: number): Promise<void> {
  const q = measureQuietZone(readPng(await rasterise(svg, size)));
  // the measurement found a real QR symbol: 21 + 4k modules per side, square
  expect(Math.abs(q.spanX - q.modules)).toBeLessThan(0.35);
  expect(Math.abs(q.spanY - q.modules)).toBeLessThan(0.35);
  expect((q.modules - 21) % 4).toBe(0);
  expect(q.modules).toBeGreaterThanOrEqual(21);
  // 4 modules of light margin on every side (a few tenths of a module for anti-aliasing)
  for (const side of ['left', 'top', 'right', 'bottom'] as const) {
    expect({ side, margin: q[side] >= 3.8 }).toEqual({ side, margin: true });
  }
}

// ---------------------------------------------------------------------------------------------

// One app per engine: the tests read the shared link 'promo' and its variant 'fb', and whatever
// they write (renames, new variants, deletions) goes to links of their own. What the store does
// not decide (rendering, sizes, quiet zone, ETag arithmetic, validation) runs on SQLite only
// (`blind`); lookups, renames, deletions, case and auth run on both engines.
forEachEngine((engine) => {
  const blind = engineBlind(engine);
  beforeAll(async () => {
    t = await makeTestApp({}, { engine });
    su = (await makeKey(t, 'write', { superuser: true })).key;
    link = await newLink('promo');
    variant = await newVariant(link.id, 'fb', 'promo');
  });
  afterAll(async () => {
    await disposeTestApp(t);
  });

  describe('GET /links/{id}/qr.svg: a scanner reads the exact URL', () => {
    for (const size of SIZES) {
      (size === 256 ? test : blind)(
        `base link at ${size} px decodes to the shortUrl`,
        async () => {
          expect(link.shortUrl).toBe(`${SHORT_HOST}/promo`);
          expect(await decodeQr(link.id, size)).toBe(link.shortUrl);
        },
        SCAN_TIMEOUT,
      );

      (size === 256 ? test : blind)(
        `variant at ${size} px decodes to the variant url`,
        async () => {
          expect(variant.url).toBe(`${SHORT_HOST}/promo/fb`);
          expect(await decodeQr(link.id, size, 'fb')).toBe(variant.url);
        },
        SCAN_TIMEOUT,
      );
    }

    for (const size of [256, 2048]) {
      blind(
        `40-character slug at ${size} px decodes exactly`,
        async () => {
          const slug = ownLongSlug();
          expect(slug.length).toBe(40);
          const long = await newLink(slug);
          expect(await decodeQr(long.id, size)).toBe(long.shortUrl);
          expect(long.shortUrl).toBe(`${SHORT_HOST}/${slug}`);
        },
        SCAN_TIMEOUT,
      );

      blind(
        `40-character slug with a 32-character variant code at ${size} px decodes exactly`,
        async () => {
          const slug = ownLongSlug();
          const long = await newLink(slug);
          const code = 'Code_32-chars-long-abcdefghijKLM';
          expect(code.length).toBe(32);
          const v = await newVariant(long.id, code, slug);
          expect(await decodeQr(long.id, size, code)).toBe(v.url);
        },
        SCAN_TIMEOUT,
      );
    }

    test(
      'a second variant of the same link decodes to its own url, not the first one',
      async () => {
        const slug = ownSlug('promo');
        const own = await newLink(slug);
        const fb = await newVariant(own.id, 'fb', slug);
        const ig = await newVariant(own.id, 'ig', slug);
        expect(await decodeQr(own.id, 256, 'ig')).toBe(`${SHORT_HOST}/${slug}/ig`);
        expect(ig.url).toBe(`${SHORT_HOST}/${slug}/ig`);
        expect(await decodeQr(own.id, 256, 'fb')).toBe(fb.url);
      },
      SCAN_TIMEOUT,
    );

    blind(
      'a generated slug decodes to the link shortUrl',
      async () => {
        const res = await api(t, 'POST', '/links', { key: su, body: { destination: 'https://example.com/generated' } });
        expect(res.status).toBe(201);
        expect(res.body.shortUrl).toMatch(/^https:\/\/sl\.test\/[A-Za-z0-9]{7}$/);
        expect(await decodeQr(res.body.id, 256)).toBe(res.body.shortUrl);
      },
      SCAN_TIMEOUT,
    );
  });

  describe('GET /links/{id}/qr.svg: the SVG document', () => {
    blind('200 image/svg+xml, default size 256', async () => {
      const res = await getQr(link.id);
      expectSvg(res, 256);
    });

    for (const size of SIZES) {
      blind(`size=${size}: <svg> root with width and height ${size} and a viewBox`, async () => {
        const res = await getQr(link.id, { size: String(size) });
        expectSvg(res, size);
      });
    }

    for (const size of [97, 500, 1000, 2047]) {
      blind(`size=${size} (inside 96..2048) is accepted`, async () => {
        expectSvg(await getQr(link.id, { size: String(size) }), size);
      });
    }

    blind(
      'size and variant together: the variant at that size',
      async () => {
        const res = await getQr(link.id, { size: '300', variant: 'fb' });
        expectSvg(res, 300);
        expect(await scan(await rasterise(res.text, 300))).toBe(variant.url);
      },
      SCAN_TIMEOUT,
    );

    blind(
      'the default-size body is a 256 px image that scans to the shortUrl',
      async () => {
        const res = await getQr(link.id);
        expectSvg(res, 256);
        expect(await scan(await rasterise(res.text, 256))).toBe(link.shortUrl);
      },
      SCAN_TIMEOUT,
    );

    for (const [name, slug, code] of [
      ['base link', 'promo', undefined],
      ['variant', 'promo', 'fb'],
      ['40-character slug', LONG_SLUG, undefined],
    ] as const) {
      for (const size of [256, 2048]) {
        blind(
          `quiet zone of at least 4 modules on every side (${name}, ${size} px)`,
          async () => {
            const target = slug === 'promo' ? link : await newLink(ownLongSlug());
            const query: Record<string, string> = { size: String(size) };
            if (code) query.variant = code;
            const res = await getQr(target.id, query);
            expectSvg(res, size);
            await expectQuietZone(res.text, size);
          },
          SCAN_TIMEOUT,
        );
      }
    }
  });

  describe('GET /links/{id}/qr.svg: errors', () => {
    for (const size of ['95', '2049', '0', '-1', 'abc', '1.5', '']) {
      blind(`size=${JSON.stringify(size)} -> 400 invalid_request, field size`, async () => {
        const res = await getQr(link.id, { size });
        expectError(res, 400, 'invalid_request', 'size');
      });
    }

    blind('size=95 with a variant is still 400 field size', async () => {
      expectError(await getQr(link.id, { size: '95', variant: 'fb' }), 400, 'invalid_request', 'size');
    });

    test('unknown variant code -> 404 not_found', async () => {
      expectError(await getQr(link.id, { variant: 'nope' }), 404, 'not_found');
    });

    test('variant codes are case-sensitive: FB is not fb -> 404 not_found', async () => {
      expectError(await getQr(link.id, { variant: 'FB' }), 404, 'not_found');
    });

    test("another link's variant code -> 404 not_found", async () => {
      const slug = ownSlug('other');
      const other = await newLink(slug);
      await newVariant(other.id, 'tw', slug);
      expectError(await getQr(link.id, { variant: 'tw' }), 404, 'not_found');
      expectSvg(await getQr(other.id, { variant: 'tw' }), 256);
    });

    test('unknown link -> 404 not_found', async () => {
      expectError(await getQr('lnk_doesnotexist00'), 404, 'not_found');
    });

    test('unknown link with a variant -> 404 not_found', async () => {
      expectError(await getQr('lnk_doesnotexist00', { variant: 'fb' }), 404, 'not_found');
    });

    test('a deleted link -> 404 not_found', async () => {
      const gone = await newLink(ownSlug('gone'));
      expectSvg(await getQr(gone.id), 256);
      const del = await api(t, 'DELETE', `/links/${gone.id}`, { key: su });
      expect(del.status).toBe(200);
      expectError(await getQr(gone.id), 404, 'not_found');
    });

    test('the slug is not an id: /links/<slug>/qr.svg -> 404 not_found', async () => {
      expectError(await getQr('promo'), 404, 'not_found');
    });
  });

  describe('GET /links/{id}/qr.svg: caching', () => {
    const STRONG_ETAG = /^"[\x21\x23-\x7e]+"$/;

    blind('ETag is present, strong and quoted; Cache-Control: private, no-cache', async () => {
      const res = await getQr(link.id);
      expectSvg(res, 256);
      const etag = res.headers.get('etag');
      expect(etag).not.toBeNull();
      expect(etag!.startsWith('W/')).toBe(false);
      expect(etag).toMatch(STRONG_ETAG);
      const cc = (res.headers.get('cache-control') ?? '')
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .sort();
      expect(cc).toEqual(['no-cache', 'private']);
    });

    blind('the variant answer has a strong ETag and the same Cache-Control', async () => {
      const res = await getQr(link.id, { variant: 'fb', size: '512' });
      expectSvg(res, 512);
      expect(res.headers.get('etag')).toMatch(STRONG_ETAG);
      const cc = (res.headers.get('cache-control') ?? '')
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .sort();
      expect(cc).toEqual(['no-cache', 'private']);
    });

    blind('the same request twice gives the same ETag and the same body', async () => {
      const a = await getQr(link.id, { size: '300', variant: 'fb' });
      const b = await getQr(link.id, { size: '300', variant: 'fb' });
      expectSvg(a, 300);
      expectSvg(b, 300);
      expect(a.headers.get('etag')).toMatch(STRONG_ETAG);
      expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
      // a strong ETag promises byte-identical representations
      expect(b.text).toBe(a.text);
    });

    blind('the ETag does not depend on the key: a read key sees the same one', async () => {
      const read = (await makeKey(t, 'read')).key;
      const a = await getQr(link.id);
      const b = await getQr(link.id, {}, { key: read });
      expectSvg(a, 256);
      expectSvg(b, 256);
      expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
    });

    blind('If-None-Match with that ETag -> 304 with an empty body', async () => {
      const first = await getQr(link.id);
      expectSvg(first, 256);
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(STRONG_ETAG);
      const res = await getQr(link.id, {}, { headers: { 'if-none-match': etag } });
      expect(res.status).toBe(304);
      expect(res.text).toBe('');
    });

    blind('the 304 repeats the ETag and Cache-Control (RFC 9110 15.4.5)', async () => {
      const first = await getQr(link.id, { size: '512' });
      expectSvg(first, 512);
      const etag = first.headers.get('etag')!;
      const res = await getQr(link.id, { size: '512' }, { headers: { 'if-none-match': etag } });
      expect(res.status).toBe(304);
      expect(res.text).toBe('');
      expect(res.headers.get('etag')).toBe(etag);
      const cc = (res.headers.get('cache-control') ?? '')
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .sort();
      expect(cc).toEqual(['no-cache', 'private']);
    });

    blind('If-None-Match with that ETag on a variant -> 304', async () => {
      const first = await getQr(link.id, { variant: 'fb' });
      expectSvg(first, 256);
      const res = await getQr(link.id, { variant: 'fb' }, { headers: { 'if-none-match': first.headers.get('etag')! } });
      expect(res.status).toBe(304);
      expect(res.text).toBe('');
    });

    blind('If-None-Match with a read key -> 304 as well', async () => {
      const read = (await makeKey(t, 'read')).key;
      const first = await getQr(link.id, {}, { key: read });
      expectSvg(first, 256);
      const res = await getQr(link.id, {}, { key: read, headers: { 'if-none-match': first.headers.get('etag')! } });
      expect(res.status).toBe(304);
      expect(res.text).toBe('');
    });

    blind(
      'If-None-Match with another ETag -> 200 with the full SVG',
      async () => {
        const res = await getQr(link.id, {}, { headers: { 'if-none-match': '"not-the-etag"' } });
        expectSvg(res, 256);
        expect(res.headers.get('etag')).not.toBe('"not-the-etag"');
        expect(await scan(await rasterise(res.text, 256))).toBe(link.shortUrl);
      },
      SCAN_TIMEOUT,
    );

    blind("another size's ETag does not give a 304", async () => {
      const small = await getQr(link.id, { size: '128' });
      expectSvg(small, 128);
      const res = await getQr(link.id, { size: '512' }, { headers: { 'if-none-match': small.headers.get('etag')! } });
      expectSvg(res, 512);
    });

    blind("the base link's ETag does not give a 304 for a variant", async () => {
      const base = await getQr(link.id);
      expectSvg(base, 256);
      const res = await getQr(link.id, { variant: 'fb' }, { headers: { 'if-none-match': base.headers.get('etag')! } });
      expectSvg(res, 256);
    });

    blind("another link's ETag does not give a 304", async () => {
      const other = await newLink(ownSlug('other'));
      const a = await getQr(other.id);
      expectSvg(a, 256);
      const res = await getQr(link.id, {}, { headers: { 'if-none-match': a.headers.get('etag')! } });
      expectSvg(res, 256);
      expect(res.headers.get('etag')).not.toBe(a.headers.get('etag'));
    });

    blind('a different size gives a different ETag', async () => {
      const etags = new Set<string>();
      for (const size of ['96', '256', '257', '2048']) {
        const res = await getQr(link.id, { size });
        expectSvg(res, Number(size));
        expect(res.headers.get('etag')).toMatch(STRONG_ETAG);
        etags.add(res.headers.get('etag')!);
      }
      expect(etags.size).toBe(4);
    });

    blind('a different variant (or none) gives a different ETag', async () => {
      const slug = ownSlug('promo');
      const own = await newLink(slug);
      await newVariant(own.id, 'fb', slug);
      await newVariant(own.id, 'ig', slug);
      const etags = new Set<string>();
      for (const v of [undefined, 'fb', 'ig']) {
        const res = await getQr(own.id, v ? { variant: v } : {});
        expectSvg(res, 256);
        expect(res.headers.get('etag')).toMatch(STRONG_ETAG);
        etags.add(res.headers.get('etag')!);
      }
      expect(etags.size).toBe(3);
    });

    test(
      'renaming the slug changes the ETag; the old one no longer gives 304; the new code decodes to the new URL',
      async () => {
        const slug = ownSlug('promo');
        const renamed = ownSlug('renamed');
        const own = await newLink(slug);
        const before = await getQr(own.id, { size: '256' });
        expectSvg(before, 256);
        const oldEtag = before.headers.get('etag')!;
        expect(oldEtag).toMatch(STRONG_ETAG);
        expect(await scan(await rasterise(before.text, 256))).toBe(`${SHORT_HOST}/${slug}`);

        const patch = await api(t, 'PATCH', `/links/${own.id}`, { key: su, body: { slug: renamed } });
        expect(patch.status).toBe(200);
        expect(patch.body.slug).toBe(renamed);
        expect(patch.body.shortUrl).toBe(`${SHORT_HOST}/${renamed}`);

        const after = await getQr(own.id, { size: '256' });
        expectSvg(after, 256);
        const newEtag = after.headers.get('etag')!;
        expect(newEtag).toMatch(STRONG_ETAG);
        expect(newEtag).not.toBe(oldEtag);
        expect(await scan(await rasterise(after.text, 256))).toBe(patch.body.shortUrl);

        const revalidate = await getQr(own.id, { size: '256' }, { headers: { 'if-none-match': oldEtag } });
        expectSvg(revalidate, 256);
        expect(revalidate.headers.get('etag')).toBe(newEtag);
        expect(await scan(await rasterise(revalidate.text, 256))).toBe(`${SHORT_HOST}/${renamed}`);

        const again = await getQr(own.id, { size: '256' }, { headers: { 'if-none-match': newEtag } });
        expect(again.status).toBe(304);
        expect(again.text).toBe('');
      },
      SCAN_TIMEOUT,
    );

    test(
      'renaming the slug changes the variant ETag and its code decodes to the new variant URL',
      async () => {
        const slug = ownSlug('promo');
        const renamed = ownSlug('renamed');
        const own = await newLink(slug);
        await newVariant(own.id, 'fb', slug);
        const before = await getQr(own.id, { variant: 'fb' });
        expectSvg(before, 256);
        const oldEtag = before.headers.get('etag')!;

        const patch = await api(t, 'PATCH', `/links/${own.id}`, { key: su, body: { slug: renamed } });
        expect(patch.status).toBe(200);
        const vs = await api(t, 'GET', `/links/${own.id}/variants`, { key: su });
        expect(vs.status).toBe(200);
        const fb = vs.body.find((v: any) => v.code === 'fb');
        expect(fb.url).toBe(`${SHORT_HOST}/${renamed}/fb`);

        const after = await getQr(own.id, { variant: 'fb' }, { headers: { 'if-none-match': oldEtag } });
        expectSvg(after, 256);
        expect(after.headers.get('etag')).toMatch(STRONG_ETAG);
        expect(after.headers.get('etag')).not.toBe(oldEtag);
        expect(await scan(await rasterise(after.text, 256))).toBe(fb.url);
      },
      SCAN_TIMEOUT,
    );

    test(
      'renaming a variant code: the old code is 404, the new one decodes',
      async () => {
        const slug = ownSlug('promo');
        const own = await newLink(slug);
        const fb = await newVariant(own.id, 'fb', slug);
        const patch = await api(t, 'PATCH', `/links/${own.id}/variants/${fb.id}`, {
          key: su,
          body: { code: 'fb2' },
        });
        expect(patch.status).toBe(200);
        expect(patch.body.url).toBe(`${SHORT_HOST}/${slug}/fb2`);
        expectError(await getQr(own.id, { variant: 'fb' }), 404, 'not_found');
        const res = await getQr(own.id, { variant: 'fb2' });
        expectSvg(res, 256);
        expect(await scan(await rasterise(res.text, 256))).toBe(patch.body.url);
      },
      SCAN_TIMEOUT,
    );
  });

  describe('GET /links/{id}/qr.svg: auth', () => {
    test(
      'a read key may fetch it (200, scans to the shortUrl)',
      async () => {
        const read = (await makeKey(t, 'read')).key;
        const res = await getQr(link.id, { size: '256' }, { key: read });
        expectSvg(res, 256);
        expect(res.headers.get('etag')).toMatch(/^"[\x21\x23-\x7e]+"$/);
        expect(await scan(await rasterise(res.text, 256))).toBe(link.shortUrl);
      },
      SCAN_TIMEOUT,
    );

    test('a read key may fetch a variant', async () => {
      const read = (await makeKey(t, 'read')).key;
      const res = await getQr(link.id, { variant: 'fb' }, { key: read });
      expectSvg(res, 256);
    });

    test('a non-superuser write key may fetch it', async () => {
      const write = (await makeKey(t, 'write')).key;
      expectSvg(await getQr(link.id, {}, { key: write }), 256);
    });

    test('no key -> 401 key_missing', async () => {
      const res = await getQr(link.id, {}, { key: null });
      expectError(res, 401, 'key_missing');
      expect(res.headers.get('etag')).toBeNull();
    });

    test('no key for an unknown link is still 401, not 404', async () => {
      expectError(await getQr('lnk_doesnotexist00', {}, { key: null }), 401, 'key_missing');
    });

    test('an unknown key -> 401 key_unknown', async () => {
      expectError(await getQr(link.id, {}, { key: `slk_${'A'.repeat(40)}` }), 401, 'key_unknown');
    });
  });
});
