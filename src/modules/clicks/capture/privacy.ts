/**
 * The privacy switches as the redirect applies them while it captures a click (docs/operations.md,
 * "Privacy"). An opted-out click (Sec-GPC: 1 with SLINK_HONOR_GPC, DNT: 1 with SLINK_HONOR_DNT,
 * or the SLINK_NO_TRACK_PARAM parameter in the address) is counted but not profiled: its record
 * leaves the redirect without address, user agent, referrer or languages, so none of them ever
 * reaches the buffer, a spill file, the database, a webhook or a live event; the flush then
 * stores it with every dimension empty and no visitor hash (enrich.ts). Its bot verdict is taken
 * here, from the agent, before the agent is dropped: the same cached lookup the flush would make.
 */
import type { PrivacyConfig } from '../../../config';

/** Whether a request opts its click out; `url` is the request's full URL. */
export type OptOutTest = (headers: Headers, url: string) => boolean;

/**
 * The test of the switches in force, built once at start: every switch off costs nothing, each
 * one on costs one header read (or one scan of the query string).
 */
export function optOutTest(privacy: PrivacyConfig): OptOutTest {
  const { honorGpc, honorDnt, noTrackParam } = privacy;
  if (!honorGpc && !honorDnt && noTrackParam === null) return () => false;
  return (headers, url) =>
    (honorGpc && headers.get('sec-gpc') === '1') ||
    (honorDnt && headers.get('dnt') === '1') ||
    (noTrackParam !== null && hasQueryParam(url, noTrackParam));
}

/** Whether the query of `url` holds the parameter `name` (with or without a value), as written. */
export function hasQueryParam(url: string, name: string): boolean {
  const q = url.indexOf('?');
  if (q < 0) return false;
  let at = url.indexOf(name, q + 1);
  while (at >= 0) {
    const before = url.charCodeAt(at - 1);
    const after = at + name.length < url.length ? url.charCodeAt(at + name.length) : -1;
    // Preceded by ? or &, followed by =, & , # or the end: the whole key, not part of another.
    if ((before === 0x3f || before === 0x26) && (after === -1 || after === 0x3d || after === 0x26 || after === 0x23))
      return true;
    at = url.indexOf(name, at + 1);
  }
  return false;
}

/** A raw query string without every occurrence of the parameter `name` (the rest kept as written). */
export function withoutQueryParam(query: string, name: string): string {
  return query
    .split('&')
    .filter((part) => {
      const eq = part.indexOf('=');
      return (eq < 0 ? part : part.slice(0, eq)) !== name;
    })
    .join('&');
}
