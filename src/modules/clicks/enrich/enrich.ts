/**
 * Turns a captured click into the facts we store: bot or human, device/OS/browser, country and
 * city, referrer host, traffic type, language, UTM values and the visitor hash. Runs in the
 * flush, never on the request. Every lookup here is cached (user agent, address, day salt).
 */
import { BoundedCache } from '../../../lib/bounded-cache';
import { utcDay } from '../../../lib/time';
import type { RollupClick } from '../../rollups/public';
import type { WireClick } from '../capture/record';
import { botName } from './bot-name';
import { type GeoLookup, unmapAddress } from './geo';
import { preferredLanguage } from './language';
import { referrerHost, type TrafficType, trafficType } from './traffic';
import { parseAgent } from './user-agent';
import type { VisitorHashes } from './visitor';

/** What the rollups count of a click (rollups/rollups.ts RollupClick), plus what only the click store keeps. */
export interface EnrichedClick extends RollupClick {
  /** The target's serial (target-block.ts), 0 when unknown. */
  serial: number;
  day: number;
  destination: string;
  paramsJson: string;
  trafficType: TrafficType;
  /** 16 hex characters; '' for an opted-out click, whose hash is never computed. */
  visitorHash: string;
  /**
   * An imported click (no visitor hash) that its source recorded as a human's first visit of its
   * UTC day on the link (imported.ts): the writers store it as one.
   */
  firstVisit?: true;
  /** The link's dictionary value and click target ids the click carried (WireClick), 0: not known. */
  linkValue?: number;
  targetId?: number;
}

export interface EnrichContext {
  geo: GeoLookup;
  hasher: VisitorHashes;
  /** Our own hosts: a referrer from them is not a referral. */
  ownHosts: readonly string[];
}

// Clicks of one link share one params JSON string: parse each distinct one once.
const paramsCache = new BoundedCache<string, Readonly<Record<string, string>>>(10_000);

function paramsOf(json: string): Readonly<Record<string, string>> {
  let params = paramsCache.get(json);
  if (params === undefined) {
    params = Object.freeze(JSON.parse(json) as Record<string, string>);
    paramsCache.set(json, params);
  }
  return params;
}

export function enrichClick(record: WireClick, ctx: EnrichContext): EnrichedClick {
  const params = paramsOf(record.paramsJson);
  if (record.optedOut) return optedOutClick(record, params, ctx);
  const agent = parseAgent(record.userAgent);
  // A bot hit is shown under the bot's name (bot-name.ts), not as the browser it may imitate.
  const browser = record.bot ? botName(record.userAgent) : agent.browser;
  // One form per address: a dual-stack socket's ::ffff:1.2.3.4 is the visitor 1.2.3.4.
  const address = record.address === null ? null : unmapAddress(record.address);
  const geo = ctx.geo.lookup(address);
  const refHost = referrerHost(record.referrer);
  const day = utcDay(record.time);
  return {
    serial: record.serial ?? 0,
    linkId: record.linkId,
    variantId: record.variantId,
    code: record.code,
    rule: record.rule ?? null,
    time: record.time,
    day,
    bot: record.bot,
    destination: record.location,
    params,
    paramsJson: record.paramsJson,
    country: geo.country,
    city: geo.city,
    device: agent.device,
    os: agent.os,
    browser,
    referrer: refHost,
    trafficType: trafficType(refHost, params.utm_medium, ctx.ownHosts),
    language: preferredLanguage(record.acceptLanguage),
    visitorHash: ctx.hasher.hash(day, address, record.userAgent),
    linkValue: record.linkValue ?? 0,
    targetId: record.targetId ?? 0,
  };
}

/**
 * A click counted but not profiled (capture/privacy.ts): every dimension empty and no visitor
 * hash, whatever the record holds (the redirect kept none of it). Its traffic type is what the
 * link's own utm_medium says, else direct: nothing of the visitor's.
 */
function optedOutClick(record: WireClick, params: Readonly<Record<string, string>>, ctx: EnrichContext): EnrichedClick {
  return {
    serial: record.serial ?? 0,
    linkId: record.linkId,
    variantId: record.variantId,
    code: record.code,
    rule: record.rule ?? null,
    time: record.time,
    day: utcDay(record.time),
    bot: record.bot,
    destination: record.location,
    params,
    paramsJson: record.paramsJson,
    country: null,
    city: null,
    device: null,
    os: null,
    browser: null,
    referrer: null,
    trafficType: trafficType(null, params.utm_medium, ctx.ownHosts),
    language: null,
    visitorHash: '',
    optedOut: true,
    linkValue: record.linkValue ?? 0,
    targetId: record.targetId ?? 0,
  };
}
