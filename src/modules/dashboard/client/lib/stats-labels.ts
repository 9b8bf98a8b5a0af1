/**
 * How breakdown values read on the statistics pages: country and language codes named in the
 * reader's language (the code kept beside the name), and `null`, which the API sends for "not
 * known" (and a link's variant `""`, its own clicks), said in words that fit the breakdown (no
 * referrer is a direct visit, no variant is the link itself). Values are only ever turned into
 * text here; the pages render them as text.
 */

export type BreakdownKind =
  | 'country'
  | 'city'
  | 'device'
  | 'os'
  | 'browser'
  | 'referrer'
  | 'trafficType'
  | 'utm'
  | 'variant'
  | 'language'
  | 'param';

const NULL_LABELS: Partial<Record<BreakdownKind, string>> = {
  referrer: 'Direct (no referrer)',
  language: 'Not given',
  // A link's variant entry "": its clicks on the bare link and on codes that match no variant.
  variant: 'No variant (the link itself)',
};

function displayNames(type: 'region' | 'language'): Intl.DisplayNames | null {
  try {
    return new Intl.DisplayNames(undefined, { type, fallback: 'none' });
  } catch {
    return null;
  }
}

const regions = displayNames('region');
const languages = displayNames('language');

/** The name Intl knows for a code, or undefined (unknown code, or one Intl refuses). */
function nameOf(names: Intl.DisplayNames | null, code: string): string | undefined {
  try {
    return names?.of(code);
  } catch {
    return undefined;
  }
}

/** "United Kingdom" for GB; the code itself when the browser has no name for it. */
export const countryName = (code: string) => nameOf(regions, code) ?? code;

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export function breakdownLabel(kind: BreakdownKind, value: string | null): string {
  if (value === null || value === '') return NULL_LABELS[kind] ?? 'Unknown';
  switch (kind) {
    case 'country': {
      const name = countryName(value);
      return name === value ? value : `${name} (${value})`;
    }
    case 'language': {
      const name = nameOf(languages, value);
      return name ? `${name} (${value})` : value;
    }
    case 'device':
    case 'trafficType':
      return capitalised(value);
    default:
      return value;
  }
}
