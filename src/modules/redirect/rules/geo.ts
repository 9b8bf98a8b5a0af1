/**
 * The geo database country rules read, opened at the first lookup a rule needs (most
 * processes never do) and shared by every caller of one path: the writer has its own (in its
 * Worker), so nothing is opened on the main thread unless a link has a country rule or a rules
 * test gives an address.
 */
import { type GeoLookup, noGeo, openGeo } from '../../clicks/public';

const opened = new Map<string, GeoLookup>();

/** A function answering the lookup for `path` (SLINK_GEO_DB; null: the bundled files). */
export function ruleGeo(path: string | null, onError: (error: unknown) => void): () => GeoLookup {
  const key = path ?? '';
  return () => {
    let geo = opened.get(key);
    if (geo === undefined) {
      try {
        geo = openGeo(path);
      } catch (error) {
        // The writer refuses the same path at start; here, no country is known (no rule matches).
        onError(error);
        geo = noGeo;
      }
      opened.set(key, geo);
    }
    return geo;
  };
}
