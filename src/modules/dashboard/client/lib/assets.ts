/**
 * The served URL of an asset the build made for the client to load itself (the world map,
 * `world-map.svg`), read from the shell's asset map; undefined when the build has none.
 */
export function assetUrl(name: string): string | undefined {
  const map = JSON.parse(document.getElementById('slink-assets')?.textContent ?? '{}') as Record<string, string>;
  return Object.hasOwn(map, name) ? map[name] : undefined;
}
