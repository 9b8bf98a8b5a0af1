/**
 * The lines of the spill file (spill.ts), one JSON object each. A click is saved as the click
 * store keeps it (enrich.ts): geo, the parsed agent, the referrer's host, the language, the
 * traffic type and the salted visitor hash; never the client address or the user agent (raw
 * addresses are never stored). A day whose salt was not stored when its clicks were spilled gets
 * a line with that salt, which the replay stores, so the day's later visitors hash the same way.
 *
 * The release before saved the captured click (a WireClick, address and user agent included,
 * no `v`): such lines are still read and enriched at the replay, and go with the file. A line
 * without `rule` (written before link rules) is a click no rule chose.
 */
import { utcDay } from '../../../lib/time';
import { CLICK_DIMS, type ClickDimTuple, dimsOf, dimValues } from '../../rollups/public';
import type { EnrichedClick } from '../enrich/enrich';
import type { TrafficType } from '../enrich/traffic';
import type { WireClick } from './record';

const VERSION = 2;

export type SpillEntry =
  | { kind: 'enriched'; click: EnrichedClick }
  | { kind: 'captured'; click: WireClick }
  | { kind: 'salt'; day: number; salt: string };

/** The line of a click: the stored facts only (the target serial names a target in this process alone). */
export function clickLine(c: EnrichedClick): string {
  return JSON.stringify({
    v: VERSION,
    time: c.time,
    linkId: c.linkId,
    variantId: c.variantId,
    code: c.code,
    // Only when a rule chose the destination: a line without it reads as none, as older ones do.
    ...(c.rule === null ? {} : { rule: c.rule }),
    destination: c.destination,
    paramsJson: c.paramsJson,
    ...dimsOf(c),
    trafficType: c.trafficType,
    visitorHash: c.visitorHash,
    bot: c.bot,
    // Only for an opted-out click (no dimensions, no visitor hash): a line without it reads as profiled.
    ...(c.optedOut ? { optedOut: true } : {}),
  });
}

export function saltLine(day: number, salt: string): string {
  return JSON.stringify({ v: VERSION, saltDay: day, salt });
}

const TRAFFIC_TYPES: ReadonlySet<string> = new Set<TrafficType>(['direct', 'search', 'social', 'email', 'referral']);
const isText = (v: unknown): v is string => typeof v === 'string';
const isTextOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';
/** A rule index, or null/absent for none (lines written before link rules have none). */
const isRuleOrNone = (v: unknown): v is number | null | undefined =>
  v === undefined || v === null || (Number.isInteger(v) && (v as number) >= 0);

function paramsOf(json: string): Readonly<Record<string, string>> | null {
  try {
    const params: unknown = JSON.parse(json);
    if (typeof params !== 'object' || params === null || Array.isArray(params)) return null;
    return Object.values(params).every(isText) ? (params as Record<string, string>) : null;
  } catch {
    return null;
  }
}

function enrichedClick(c: Record<string, unknown>): EnrichedClick | null {
  if (typeof c.time !== 'number' || !isText(c.linkId) || !isText(c.destination) || !isText(c.paramsJson)) return null;
  const optedOut = c.optedOut === true;
  // An opted-out click has no visitor hash; every other one has a whole one.
  const visitorOk = optedOut ? c.visitorHash === '' : isText(c.visitorHash) && /^[0-9a-f]{16}$/.test(c.visitorHash);
  if (typeof c.bot !== 'boolean' || !visitorOk || (c.optedOut !== undefined && c.optedOut !== true)) return null;
  if (!isText(c.trafficType) || !TRAFFIC_TYPES.has(c.trafficType)) return null;
  const { variantId, code, rule } = c;
  for (const v of [variantId, code, ...CLICK_DIMS.map((d) => c[d])]) if (!isTextOrNull(v)) return null;
  if (!isRuleOrNone(rule)) return null;
  const params = paramsOf(c.paramsJson);
  if (params === null) return null;
  return {
    serial: 0,
    linkId: c.linkId,
    variantId: variantId as string | null,
    code: code as string | null,
    rule: rule ?? null,
    time: c.time,
    day: utcDay(c.time),
    bot: c.bot,
    destination: c.destination,
    params,
    paramsJson: c.paramsJson,
    ...dimValues(CLICK_DIMS.map((d) => c[d]) as ClickDimTuple),
    trafficType: c.trafficType as TrafficType,
    visitorHash: c.visitorHash as string,
    ...(optedOut ? { optedOut: true } : {}),
  };
}

function capturedClick(c: Record<string, unknown>): WireClick | null {
  const ok =
    typeof c.time === 'number' &&
    isText(c.linkId) &&
    isText(c.location) &&
    isText(c.paramsJson) &&
    typeof c.bot === 'boolean' &&
    [c.variantId, c.code, c.address, c.userAgent, c.referrer, c.acceptLanguage].every(isTextOrNull) &&
    isRuleOrNone(c.rule);
  return ok ? (c as unknown as WireClick) : null;
}

/** What a line holds; null for a line that cannot be read (cut short by a crash, or damaged). */
export function parseSpillLine(line: string): SpillEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const c = value as Record<string, unknown>;
  if (c.v === undefined) {
    const click = capturedClick(c);
    return click && { kind: 'captured', click };
  }
  if (c.v !== VERSION) return null;
  if (c.saltDay !== undefined) {
    return Number.isInteger(c.saltDay) && isText(c.salt)
      ? { kind: 'salt', day: c.saltDay as number, salt: c.salt }
      : null;
  }
  const click = enrichedClick(c);
  return click && { kind: 'enriched', click };
}
