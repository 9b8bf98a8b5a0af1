/**
 * Clicks another service recorded, brought in by an import (imports/history): made into the
 * facts this store keeps of a click (enrich.ts EnrichedClick) from what the source has, never
 * invented. What the source lacks is unknown (null, counted as unknown in every breakdown); a
 * user agent is parsed with the redirect's own cached parser and a bot classified from it
 * unless the source said; the place is the source's, never looked up; the referrer is kept as
 * its host, as SLINK_REFERRER and SLINK_GEO let any click keep it. An imported click has no
 * visitor hash (''): it adds no unique visitor, since nothing tells two of them apart, unless
 * the source recorded it as a first visit of its day (another Slink's export): then it is one.
 */
import type { GeoLevel } from '../../config';
import { utcDay } from '../../lib/time';
import { KNOWN_BROWSERS, KNOWN_OS, RULE_DEVICES } from '../links/public';
import { isBotAgent } from './capture/bot';
import { botName } from './enrich/bot-name';
import type { EnrichedClick } from './enrich/enrich';
import { referrerHost, type TrafficType, trafficType } from './enrich/traffic';
import { parseAgent } from './enrich/user-agent';

/** One visit as a source recorded it. Unknown fields are null. */
export interface ImportedVisit {
  time: number;
  /** A URL, or a bare host as some sources keep it. */
  referrer: string | null;
  userAgent: string | null;
  /** ISO 3166-1 alpha-2; anything else is unknown. */
  country: string | null;
  city: string | null;
  /** The source's own verdict; null: classified from the user agent (none: a human). */
  bot: boolean | null;
  /** Parsed by the source, used only when it has no user agent. */
  device: string | null;
  os: string | null;
  browser: string | null;
  /**
   * Optional, from a source that keeps what a Slink click record has (another Slink's export):
   * the visitor's language, the traffic type, and the destination and params the click was sent
   * to (a variant's). Absent or null: none, the one worked out here, and the link's.
   */
  language?: string | null;
  /** The variant code the click named (its target's variants give the variant it went through). */
  variantCode?: string | null;
  trafficType?: string | null;
  destination?: string | null;
  params?: Readonly<Record<string, unknown>> | null;
  /** Optional: the source counted it as its visitor's first visit of its UTC day on the link. */
  firstVisit?: boolean;
}

/** The link an imported click went to: its destination and params when imported. */
export interface ImportTarget {
  linkId: string;
  destination: string;
  paramsJson: string;
  /** The link's variants, code to id: a click naming one of them went through it. */
  variants?: ReadonlyMap<string, string>;
}

/** What a click may keep (the privacy switches, config.ts). */
export interface ImportPolicy {
  referrer: 'host' | 'none';
  geo: GeoLevel;
  /** Our own hosts: a referrer from them is no referral. */
  ownHosts: readonly string[];
}

/** A text fact from a source, trimmed and bounded, or null when empty. */
function fact(value: string | null, max = 200): string | null {
  if (value === null) return null;
  const v = value.trim();
  return v === '' ? null : v.slice(0, max);
}

const COUNTRY = /^[A-Z]{2}$/;
const TRAFFIC_TYPES: ReadonlySet<string> = new Set<TrafficType>(['direct', 'search', 'social', 'email', 'referral']);

/** A click's own params from the source: string values only, within the limits of a link's. */
function paramsFrom(raw: Readonly<Record<string, unknown>>): Record<string, string> | null {
  const out: Record<string, string> = {};
  let n = 0;
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value !== 'string' || key === '' || key.length > 100 || value.length > 2000) return null;
    if (++n > 50) return null;
    out[key] = value;
  }
  return out;
}

const nameKey = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, '');

/**
 * A device, OS or browser the source parsed itself, in the statistics' words when it is one of
 * theirs (Dub says `Mobile`, `Desktop`; people write `macOS` for `Mac OS`): an imported click
 * and a redirect's then fall in one breakdown entry. A name the statistics do not know is kept.
 */
function named(value: string | null, max: number, known: readonly string[]): string | null {
  const v = fact(value, max);
  if (v === null) return null;
  const key = nameKey(v);
  return known.find((k) => nameKey(k) === key) ?? v;
}

function hostOf(referrer: string | null): string | null {
  const r = fact(referrer, 2000);
  if (r === null) return null;
  // Some sources keep only the host: read it as an address on that host.
  return referrerHost(/^[a-z][a-z0-9+.-]*:\/\//i.test(r) ? r : `https://${r}`);
}

export function importedClick(
  visit: ImportedVisit,
  target: ImportTarget,
  params: Readonly<Record<string, string>>,
  policy: ImportPolicy,
): EnrichedClick {
  const agent = fact(visit.userAgent, 2000);
  const bot = visit.bot ?? (agent === null ? false : isBotAgent(agent));
  const parsed = agent === null ? null : parseAgent(agent);
  const country = policy.geo === 'none' ? null : (fact(visit.country)?.toUpperCase() ?? null);
  const knownCountry = country !== null && COUNTRY.test(country) ? country : null;
  const refHost = policy.referrer === 'none' ? null : hostOf(visit.referrer);
  // What the click itself was sent with, when the source kept it (a variant's params).
  const own = visit.params ? paramsFrom(visit.params) : null;
  const clickParams = own ?? params;
  const said = fact(visit.trafficType ?? null, 20);
  const code = fact(visit.variantCode ?? null, 32);
  return {
    serial: 0,
    linkId: target.linkId,
    variantId: code === null ? null : (target.variants?.get(code) ?? null),
    code,
    rule: null,
    time: visit.time,
    day: utcDay(visit.time),
    bot,
    destination: fact(visit.destination ?? null, 4096) ?? target.destination,
    params: clickParams,
    paramsJson: own === null ? target.paramsJson : JSON.stringify(own),
    country: knownCountry,
    // A city without its country cannot be named (rollups key a city by its country).
    city: policy.geo === 'city' && knownCountry !== null ? fact(visit.city) : null,
    device: parsed ? parsed.device : named(visit.device, 50, RULE_DEVICES),
    os: parsed ? parsed.os : named(visit.os, 100, KNOWN_OS),
    browser:
      bot && agent !== null ? botName(agent) : parsed ? parsed.browser : named(visit.browser, 100, KNOWN_BROWSERS),
    referrer: refHost,
    trafficType:
      said !== null && TRAFFIC_TYPES.has(said)
        ? (said as TrafficType)
        : trafficType(refHost, clickParams.utm_medium, policy.ownHosts),
    language: fact(visit.language ?? null, 35),
    visitorHash: '',
    // A human's only, as a live first visit.
    ...(visit.firstVisit === true && !bot ? { firstVisit: true } : {}),
  };
}
