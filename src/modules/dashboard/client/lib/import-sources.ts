/**
 * The sources an import reads, as the Import page offers them: what each carries (the
 * contract's table, in a person's words) and what it needs: an address and a token for a
 * service read over the network, a file for the others. DOM-free.
 */
import type { ImportConflict, ImportHistory, ImportSourceName } from '../api/imports';
import type { ImportedHistory } from '../api/types';

export interface SourceInfo {
  value: ImportSourceName;
  label: string;
  /** The source after "imported from" on a link's page. */
  from: string;
  /** One line: what comes over, history included. */
  carries: string;
  /** Read over the network (address and token), or from an uploaded file. */
  reads: 'network' | 'file';
  /** The address field: its label and hint; `optional` when the service has one known address. */
  address?: { label: string; hint: string; optional?: boolean };
  /** The token field's label and hint. */
  token?: { label: string; hint: string };
  /**
   * The service also signs in with a username and password instead of the token: the form offers
   * both, and sends the pair as the token `username:password` (what the source and the CLI take).
   */
  password?: { hint: string };
  /** What the file is, and the types the file picker offers first. */
  file?: { hint: string; accept: string };
}

export const SOURCES: SourceInfo[] = [
  {
    value: 'shlink',
    from: 'Shlink',
    label: 'Shlink',
    carries: 'Short URLs with every visit: time, referrer, user agent, country, city and whether a bot made it.',
    reads: 'network',
    address: { label: 'Shlink address', hint: 'Where its REST API answers, such as https://s.example.com.' },
    token: { label: 'API key', hint: 'Made with shlink api-key:generate; sent as X-Api-Key.' },
  },
  {
    value: 'bitly',
    from: 'Bitly',
    label: 'Bitly',
    carries: 'Links on your branded domains (bit.ly links cannot move) with their clicks per day.',
    reads: 'network',
    address: {
      label: 'API address',
      hint: "Leave empty for Bitly's own, https://api-ssl.bitly.com.",
      optional: true,
    },
    token: { label: 'Access token', hint: "Bitly's generic access token (Settings › API)." },
  },
  {
    value: 'kutt',
    from: 'Kutt',
    label: 'Kutt',
    carries: "Links with each one's total of visits.",
    reads: 'network',
    address: { label: 'Kutt address', hint: 'Such as https://kutt.example.com.' },
    token: { label: 'API key', hint: "Kutt's API key (Settings); sent as X-API-Key." },
  },
  {
    value: 'yourls',
    from: 'YOURLS',
    label: 'YOURLS',
    carries: "Links with each one's total of clicks.",
    reads: 'network',
    address: { label: 'YOURLS address', hint: 'Where yourls-api.php is, such as https://y.example.com.' },
    token: { label: 'Signature token', hint: "YOURLS's secret signature token (Tools)." },
    password: { hint: 'An account of YOURLS (its config.php $yourls_user_passwords).' },
  },
  {
    value: 'dub',
    from: 'Dub',
    label: 'Dub',
    carries: 'Links with every click your plan still keeps: time, place, device, browser, system and referrer.',
    reads: 'network',
    address: { label: 'API address', hint: "Leave empty for Dub's own, https://api.dub.co.", optional: true },
    token: { label: 'API key', hint: "A Dub workspace's API key." },
  },
  {
    value: 'csv',
    from: 'a CSV file',
    label: 'CSV file',
    carries:
      'A header row naming the destination (Long URL, url, destination or target) and maybe the slug or short URL, title, tags, created and a clicks total.',
    reads: 'file',
    file: { hint: "A .csv such as Bitly's, Dub's or Shlink's export.", accept: '.csv,text/csv' },
  },
  {
    value: 'slink',
    from: 'another Slink',
    label: 'Slink export',
    carries: "Another Slink's export: domains, projects, links and their clicks, everything.",
    reads: 'file',
    file: {
      hint: 'The NDJSON file of GET /api/v1/export (with ?clicks=1 for the raw clicks).',
      accept: '.ndjson,.json,.jsonl',
    },
  },
];

/**
 * The token a username and password are sent as: `username:password`, the source splitting it at
 * the first colon (so a password may hold one, a username may not).
 */
export const loginToken = (username: string, password: string): string => `${username}:${password}`;

export const sourceInfo = (value: string): SourceInfo | undefined => SOURCES.find((s) => s.value === value);

/**
 * Where a run read from, as the list of runs shows it: the address the server kept (no user,
 * password or query), "a file" for a file's, or the service's own address when none was given.
 */
export function runAddress(run: { source: string; url: string | null }): string {
  if (run.url !== null) return run.url;
  // csv always reads a file; slink reads one unless given another Slink's address.
  if (run.source === 'csv' || run.source === 'slink') return 'a file';
  return `${sourceInfo(run.source)?.from ?? run.source}'s own address`;
}

export const HISTORY_CHOICES: { value: ImportHistory; label: string; hint: string }[] = [
  {
    value: 'clicks',
    label: 'All of it',
    hint: 'Every click the source keeps; where it keeps only clicks per day or a total, those.',
  },
  { value: 'daily', label: 'Clicks per day', hint: 'Counts per day only: no raw clicks, no unique visitors.' },
  { value: 'none', label: 'None', hint: 'Links only: their clicks start at 0.' },
];

export const CONFLICT_CHOICES: { value: ImportConflict; label: string; hint: string }[] = [
  { value: 'skip', label: 'Skip it', hint: 'The report says which and why.' },
  { value: 'rename', label: 'Give it another slug', hint: 'It is imported with a new random slug.' },
];

/**
 * The line on a link's page: "2 clicks before 2026-11-21 UTC imported from Shlink." and, for
 * counts without their visits, what they lack. `day` is the import's date as the page writes it.
 */
export function importedLine(imported: ImportedHistory, day: string, clicks: string): string {
  const from = sourceInfo(imported.source)?.from ?? imported.source;
  if (imported.history === 'none') return `Imported from ${from} on ${day}, without its clicks.`;
  if (imported.clicks === 0) return `Imported from ${from} on ${day}: it had no clicks there.`;
  const counted = `${clicks} ${imported.clicks === 1 ? 'click' : 'clicks'} before ${day} imported from ${from}`;
  if (imported.history === 'daily') return `${counted}, as counts per day: no visitors' details for them.`;
  if (imported.history === 'total') return `${counted}, as a total: counted here, but in no chart or breakdown.`;
  return `${counted}.`;
}
