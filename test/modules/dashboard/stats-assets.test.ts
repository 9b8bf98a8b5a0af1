/**
 * The statistics pages' build output: the world map drawn at build time is a generated asset
 * (served like the bundle, named in the shell's asset map for assetUrl), and the chart library
 * is a split chunk that the main bundle loads by import(), every one of which is served.
 */
import { expect, test } from 'bun:test';
import { ASSET_NAMES, ASSETS, ENTRY } from '../../../src/modules/dashboard/assets.gen';
import { renderShell } from '../../../src/modules/dashboard/shell';

test('the build includes world-map.svg: one path per country code, hashed and served as SVG', () => {
  const name = ASSET_NAMES['world-map.svg'];
  expect(name).toMatch(/^world-map-[a-z0-9]+\.svg$/);
  const svg = ASSETS[name!]!;
  expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
  for (const code of ['GB', 'US', 'DE', 'SG', 'MT']) expect(svg).toContain(`<path id="c-${code}" data-code="${code}"`);
  expect(svg).not.toMatch(/<script|style=|<style|href=/i);
  const shell = renderShell({ ...ENTRY, names: ASSET_NAMES });
  expect(shell).toContain(`"world-map.svg":"/app/assets/${name}"`);
});

test('the chart library is a chunk of its own; every chunk the bundle imports is an asset', () => {
  const main = ASSETS[ENTRY.script]!;
  const imported = [...main.matchAll(/import\("\.\/([^"]+)"\)/g)].map((m) => m[1]!);
  expect(imported.length).toBeGreaterThan(0);
  for (const chunk of imported) expect(Object.hasOwn(ASSETS, chunk)).toBe(true);
  const uplotIn = Object.keys(ASSETS).filter((n) => n.endsWith('.js') && ASSETS[n]!.includes('u-cursor-pt'));
  expect(uplotIn.length).toBe(1);
  expect(uplotIn[0]).not.toBe(ENTRY.script);
});
