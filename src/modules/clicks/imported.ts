/**
 * Clicks another service recorded, brought in by an import (imports/history): made into the
 * facts this store keeps of a click (enrich.ts EnrichedClick) from what the source has, never
 * invented. What the source lacks is unknown (null, counted as unknown in every breakdown); a
 * user agent is parsed with the redirect's own cached parser and a bot classified from it
 * unless the source said; the place is the source's, never looked up; the referrer is kept as
 * its host, as SLINK_REFERRER and SLINK_GEO let any click keep it. An imported click has no
 * visitor hash (''): it adds no unique visitor, since nothing tells two of them apart.
 */
import type { GeoLevel } from '../../config';
import { utcDay } from '../../lib/time';
import { isBotAgent } from './capture/bot';
import { botName } from './enrich/bot-name';
import type { EnrichedClick } from './enrich/enrich';
import { referrerHost, trafficType } from './enrich/traffic';
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
}

/** The link an imported click went to: its destination and params when imported. */
export interface ImportTarget {
  linkId: string;
  destination: string;
  paramsJson: string;
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
  return {
    serial: 0,
    linkId: target.linkId,
    variantId: null,
    code: null,
    rule: null,
    time: visit.time,
    day: utcDay(visit.time),
    bot,
    destination: target.destination,
    params,
    paramsJson: target.paramsJson,
    country: knownCountry,
    // A city without its country cannot be named (rollups key a city by its country).
    city: policy.geo === 'city' && knownCountry !== null ? fact(visit.city) : null,
    device: parsed ? parsed.device : fact(visit.device, 50),
    os: parsed ? parsed.os : fact(visit.os, 100),
    browser: bot && agent !== null ? botName(agent) : parsed ? parsed.browser : fact(visit.browser, 100),
    referrer: refHost,
    trafficType: trafficType(refHost, params.utm_medium, policy.ownHosts),
    language: null,
    visitorHash: '',
  };
}
