/**
 * The `slink` source: this service's own export (GET /api/v1/export, NDJSON; export/service.ts),
 * from a file or from another Slink (`url` its app origin, `token` an admin key, clicks asked
 * for). Read once, front to back, never whole: a page is one group of link lines and the click
 * lines that follow them (the export writes each page of links, then their clicks), so a page's
 * clicks are in memory while it is imported and no longer. The cursor is the count of links
 * read before the page: a resumed run reads the export again and passes over that many.
 *
 * A link's history is its raw clicks when the export carries them (every field the click record
 * has, oldest first) and the daily counts its link line carries (`importedDays`: those an import
 * into the exporting Slink brought, which no raw click holds) and the counts beyond both it
 * carries (`countedOnly`: a total imported there, raw clicks its retention removed), else its
 * clickCount as a total. Its rules, preview and password hash come
 * with it; the export's domains but its default are made here when missing (runner/domains.ts).
 */

import {
  type CountedOnly,
  type ImportSource,
  type SourceDay,
  type SourceDomain,
  SourceError,
  type SourceLink,
  type SourceOptions,
  type SourceVisit,
  withCounts,
} from '../source';
import { SourceHttp } from './http';

/** The export versions this reader knows (export/service.ts EXPORT_VERSION). */
const KNOWN_VERSIONS = new Set([1]);

type Line = Record<string, unknown> & { type?: unknown };

/** Lines of an NDJSON byte stream, one JSON value each; a line that is not JSON is a SourceError. */
async function* ndjson(stream: ReadableStream<Uint8Array>): AsyncGenerator<Line> {
  const decoder = new TextDecoder();
  let rest = '';
  let n = 0;
  const parse = (text: string): Line => {
    n++;
    try {
      const value = JSON.parse(text);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
      return value as Line;
    } catch {
      throw new SourceError(`line ${n} of the export is not a JSON object`, false);
    }
  };
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    rest += decoder.decode(chunk, { stream: true });
    let nl = rest.indexOf('\n');
    while (nl !== -1) {
      const text = rest.slice(0, nl).trim();
      rest = rest.slice(nl + 1);
      if (text !== '') yield parse(text);
      nl = rest.indexOf('\n');
    }
  }
  rest += decoder.decode();
  if (rest.trim() !== '') yield parse(rest.trim());
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * A link line's `countedOnly`: each count a whole number from 0 (absent: 0), and its unique
 * visitors among its human clicks (`uniques` never above `clicks`; `bots` are apart, unbounded
 * by either). A line out of those bounds is `problem`, naming the field: that link fails, the run
 * goes on.
 */
function countedOnlyOf(value: unknown): { counts: CountedOnly; problem: string | null } {
  const none = { clicks: 0, uniques: 0, bots: 0 };
  if (value === undefined || value === null) return { counts: none, problem: null };
  if (typeof value !== 'object' || Array.isArray(value))
    return { counts: none, problem: 'countedOnly: must be an object {clicks, uniques, bots}' };
  const v = value as Record<string, unknown>;
  const counts = { ...none };
  for (const field of ['clicks', 'uniques', 'bots'] as const) {
    const n = v[field];
    if (n === undefined) continue;
    if (!Number.isSafeInteger(n) || (n as number) < 0)
      return { counts: none, problem: `countedOnly.${field}: must be a whole number from 0, not ${JSON.stringify(n)}` };
    counts[field] = n as number;
  }
  if (counts.uniques > counts.clicks)
    return {
      counts: none,
      problem: `countedOnly.uniques: ${counts.uniques} unique visitors among ${counts.clicks} clicks (countedOnly.clicks): at most as many`,
    };
  return { counts, problem: null };
}

function toSourceLink(line: Line, withClicks: boolean, defaultHosts: ReadonlySet<string>): SourceLink {
  const id = str(line.id);
  const url = str(line.destination);
  if (id === null || url === null) throw new SourceError('a link line of the export has no id or destination', false);
  const domain = str(line.domain);
  const params = line.params && typeof line.params === 'object' ? (line.params as Record<string, string>) : {};
  // With the clicks, what the link counts beyond them and its days (none when absent).
  const counted = withClicks ? countedOnlyOf(line.countedOnly) : null;
  return {
    sourceId: id,
    url,
    slug: str(line.slug),
    // A link on the exporting Slink's default domain goes to this one's default domain.
    domain: domain === null || defaultHosts.has(domain) ? null : domain,
    title: str(line.title),
    tags: Array.isArray(line.tags) ? line.tags.filter((t): t is string => typeof t === 'string') : [],
    createdAt: int(line.createdAt),
    expiresAt: int(line.expiresAt),
    clickLimit: int(line.clickLimit),
    archived: line.status === 'archived',
    totalClicks: int(line.clickCount),
    history: withClicks ? 'visits' : 'total',
    daysToo: withClicks && Array.isArray(line.importedDays) && line.importedDays.length > 0,
    countedOnly: counted?.counts ?? null,
    invalid: counted?.problem ?? null,
    project: str(line.projectName),
    params,
    paused: line.status === 'paused',
    fallbackUrl: str(line.fallbackUrl),
    redirectStatus: int(line.redirectStatus),
    forwardQuery: line.forwardQuery === true,
    rules: line.rules ?? null,
    preview: line.preview ?? null,
    passwordProtected: line.passwordProtected === true,
    passwordHash: str(line.passwordHash),
    variants: Array.isArray(line.variants)
      ? line.variants.flatMap((v: unknown) => {
          const variant = (v ?? {}) as { code?: unknown; params?: unknown };
          const code = str(variant.code);
          const params = variant.params !== null && typeof variant.params === 'object' ? variant.params : {};
          return code === null ? [] : [{ code, params: params as Record<string, string> }];
        })
      : [],
  };
}

function toSourceDomain(line: Line): SourceDomain {
  return {
    host: line.host as string,
    origin: line.origin as string,
    rootUrl: str(line.rootUrl),
    notFoundUrl: str(line.notFoundUrl),
    expiredUrl: str(line.expiredUrl),
    upstream: str(line.upstream),
    appleAppSiteAssociation: line.appleAppSiteAssociation ?? null,
    assetLinks: line.assetLinks ?? null,
  };
}

function toVisit(line: Line): SourceVisit {
  return {
    sourceId: line.id === undefined || line.id === null ? null : String(line.id),
    // None given: no time, so not imported (runner/link-position.ts clickTime), never the epoch.
    at: int(line.timestamp) ?? Number.NaN,
    referrer: str(line.referrer),
    userAgent: null,
    country: str(line.country),
    city: str(line.city),
    bot: typeof line.bot === 'boolean' ? line.bot : null,
    device: str(line.device),
    browser: str(line.browser),
    os: str(line.os),
    variantCode: str(line.variantCode),
    language: str(line.language),
    trafficType: str(line.trafficType),
    params: line.params && typeof line.params === 'object' ? (line.params as Record<string, string>) : null,
    destination: str(line.destination),
    rule: int(line.rule),
    firstVisit: line.unique === true,
  };
}

/** A link line's imported daily counts, as the days() of a source give them (a malformed one is left out). */
function toDays(line: Line): SourceDay[] {
  if (!Array.isArray(line.importedDays)) return [];
  return line.importedDays.flatMap((d: unknown) => {
    const { day, clicks } = (d ?? {}) as { day?: unknown; clicks?: unknown };
    const n = int(clicks);
    return typeof day === 'string' && n !== null ? [{ day, clicks: n }] : [];
  });
}

/** Where the export is read from: the file, or GET {url}/api/v1/export?clicks=1 with the token. */
async function openExport(options: SourceOptions, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  if (options.file !== null) return options.file;
  // The address checked as every API source's is: http(s), and no inside address unless allowed.
  const http = new SourceHttp({
    fetch: options.fetch,
    sleep: options.sleep,
    allowPrivate: options.allowPrivate === true,
    product: 'Slink',
    secrets: [options.token],
    describe: (answer) => `answered ${answer.status}`,
  });
  const base = (await http.checkUrl(options.url!)).href.replace(/\/+$/, '');
  let res: Response;
  try {
    res = await options.fetch(`${base}/api/v1/export?clicks=1`, {
      headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
      signal,
    });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new SourceError(`could not reach ${new URL(base).origin}`, true);
  }
  if (res.status === 401 || res.status === 403)
    throw new SourceError(`the Slink at ${new URL(base).origin} refused the token (${res.status})`, false, 'token');
  if (res.status === 429 || res.status >= 500)
    throw new SourceError(`the Slink at ${new URL(base).origin} answered ${res.status}`, true);
  if (res.status !== 200 || res.body === null)
    throw new SourceError(`the Slink at ${new URL(base).origin} answered ${res.status} to its export`, false);
  return res.body;
}

export function slinkSource(options: SourceOptions): ImportSource {
  let lines: AsyncGenerator<Line> | null = null;
  /** The link line read past the end of the last page (the next page's first). */
  let pending: Line | null = null;
  let withClicks = false;
  /** The hosts of the exporting Slink's default domain (its domain lines say which). */
  const defaultHosts = new Set<string>();
  /** The exporting Slink's other domains, as its domain lines have them. */
  const domains: SourceDomain[] = [];
  /** Links read so far (the cursor of the next page). */
  let position = 0;
  /** The current page's visits by link id, oldest first. */
  let visits = new Map<string, SourceVisit[]>();
  /** The current page's imported daily counts by link id, as their link lines carry them. */
  let days = new Map<string, SourceDay[]>();

  async function start(signal: AbortSignal) {
    lines = ndjson(await openExport(options, signal));
    const header = (await lines.next()).value as Line | undefined;
    if (header?.type !== 'export' || header.source !== 'slink')
      throw new SourceError('this is not a Slink export (its first line is not the export header)', false);
    if (!KNOWN_VERSIONS.has(header.version as number))
      throw new SourceError(`export version ${String(header.version)} is not one this Slink reads`, false);
    withClicks = header.clicks === true;
  }

  return {
    name: 'slink',
    async check(signal) {
      // The first line says whether this is an export at all; the run reads on from there.
      await start(signal);
    },
    async page(cursor, signal) {
      const from = cursor === null ? 0 : Number(cursor);
      if (!Number.isInteger(from) || from < 0) throw new SourceError(`bad position ${cursor}`, false);
      // A position behind this reader's (a resumed run's first page): read the export again.
      if (lines === null || from < position) {
        await start(signal);
        position = 0;
        pending = null;
      }
      const links: SourceLink[] = [];
      visits = new Map();
      days = new Map();
      let inClicks = false;
      for (;;) {
        const next = pending ?? (await lines!.next()).value;
        pending = null;
        if (next === undefined) break;
        if (next.type === 'link') {
          if (inClicks && links.length > 0) {
            pending = next;
            break;
          }
          position++;
          if (position > from) {
            const link = toSourceLink(next, withClicks, defaultHosts);
            links.push(link);
            if (link.daysToo) days.set(link.sourceId, toDays(next));
          }
        } else if (next.type === 'click') {
          // Clicks of links passed over (a resumed run) end no page: only this page's links' do.
          if (links.length > 0) inClicks = true;
          const linkId = str(next.linkId);
          if (linkId === null || position <= from) continue;
          const list = visits.get(linkId) ?? [];
          list.push(toVisit(next));
          visits.set(linkId, list);
        } else if (next.type === 'domain' && typeof next.host === 'string') {
          if (next.default === true) defaultHosts.add(next.host);
          else if (typeof next.origin === 'string' && !domains.some((d) => d.origin === next.origin))
            domains.push(toSourceDomain(next));
        } else if (links.length > 0) inClicks = true;
      }
      // The export writes a link's clicks newest first; history is stored oldest first.
      for (const list of visits.values()) list.sort((a, b) => a.at - b.at || Number(a.sourceId) - Number(b.sourceId));
      for (const link of links)
        if (link.countedOnly)
          link.sourceCounts = withCounts(
            link.countedOnly,
            visits.get(link.sourceId) ?? [],
            days.get(link.sourceId) ?? [],
          );
      return { links, next: pending === null ? null : String(position) };
    },
    domains: () => domains,
    async *visits(link, after) {
      const list = visits.get(link.sourceId) ?? [];
      const fresh = after === null ? list : list.filter((v) => v.at > after);
      for (let i = 0; i < fresh.length; i += 1000) yield fresh.slice(i, i + 1000);
    },
    async days(link, after) {
      const list = days.get(link.sourceId) ?? [];
      return after === null ? list : list.filter((d) => d.day > after);
    },
  };
}
