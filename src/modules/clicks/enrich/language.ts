/**
 * Accept-Language (RFC 9110 weights), read once for both of its uses: the visitor's preferred
 * language (the statistics) and the languages a link rule matches (redirect/rules).
 */
import { BoundedCache } from '../../../lib/bounded-cache';

const TAG = /^[a-z]{1,8}(?:-[a-z0-9]{1,8})*$/i;

/**
 * The highest-weighted language tag, normalised as `en` or `en-US` (primary subtag lower case,
 * region upper case); null when absent, `*` or malformed.
 */
export function preferredLanguage(header: string | null): string | null {
  if (!header) return null;
  let language = languages.get(header);
  if (language === undefined) {
    language = parse(header);
    languages.set(header, language);
  }
  return language;
}

// Browsers send a handful of distinct headers: parsing one costs ~1 us (measured), a hit a Map lookup.
const languages = new BoundedCache<string, string | null>(5_000);

/** A header's well-formed entries with their weights, in the order sent (at most 20). */
function entries(header: string): { tag: string; weight: number }[] {
  const found: { tag: string; weight: number }[] = [];
  for (const part of header.split(',', 20)) {
    const [rawTag, ...attrs] = part.trim().split(';');
    const tag = rawTag!.trim();
    if (!TAG.test(tag)) continue;
    let weight = 1;
    for (const attr of attrs) {
      // RFC 9110 qvalue: 0 to 1 with at most three decimals; anything else is ignored.
      const m = /^\s*q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)\s*$/i.exec(attr);
      if (m) weight = Number(m[1]);
    }
    found.push({ tag, weight });
  }
  return found;
}

/** Entries weighted at least this much count as languages the visitor reads (link rules). */
export const ACCEPTED_WEIGHT = 0.5;
const NONE: readonly string[] = Object.freeze([]);
const accepted = new BoundedCache<string, readonly string[]>(5_000);

/**
 * The languages a link rule can name that the visitor reads: of each entry weighted
 * ACCEPTED_WEIGHT or more, its primary subtag and, when it has a region, the language-region
 * pair (lower case, each once, in the order sent): `fr-CH, fr;q=0.9, en;q=0.4` is
 * `["fr", "fr-ch"]`. Empty when absent or malformed.
 */
export function acceptedLanguages(header: string | null): readonly string[] {
  if (!header) return NONE;
  let list = accepted.get(header);
  if (list === undefined) {
    const found = new Set<string>();
    for (const { tag, weight } of entries(header)) {
      if (weight < ACCEPTED_WEIGHT) continue;
      const subtags = tag.toLowerCase().split('-');
      found.add(subtags[0]!);
      const region = regionOf(subtags);
      if (region !== null) found.add(`${subtags[0]}-${region}`);
    }
    list = found.size === 0 ? NONE : Object.freeze([...found]);
    accepted.set(header, list);
  }
  return list;
}

/**
 * The region subtag of a tag's subtags (two letters or three digits), or null. A script comes
 * before the region (zh-Hant-TW is zh-TW); variants and extensions are dropped.
 */
function regionOf(subtags: readonly string[]): string | null {
  const region = /^[a-z]{4}$/i.test(subtags[1] ?? '') ? subtags[2] : subtags[1];
  return region !== undefined && /^(?:[a-z]{2}|\d{3})$/i.test(region) ? region : null;
}

function parse(header: string): string | null {
  let best: string | null = null;
  let bestWeight = 0;
  for (const { tag, weight } of entries(header)) {
    if (weight > bestWeight) {
      best = tag;
      bestWeight = weight;
    }
  }
  if (!best) return null;
  const subtags = best.split('-');
  const lang = subtags[0]!.toLowerCase();
  // Keep a two-letter region (en-US); drop scripts and variants, which fragment the breakdown.
  // A script comes before the region (zh-Hant-TW is zh-TW).
  const region = /^[a-z]{4}$/i.test(subtags[1] ?? '') ? subtags[2] : subtags[1];
  return region && /^[a-z]{2}$/i.test(region) ? `${lang}-${region.toUpperCase()}` : lang;
}
