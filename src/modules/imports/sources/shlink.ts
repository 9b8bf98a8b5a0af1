/**
 * Shlink, through its REST API v3 (`X-Api-Key`): short URLs a page of 200 at a time, oldest
 * first, and each one's every visit. Shlink lists visits newest first, so a link's visits are
 * read from its last page back to its first, each page reversed: they come out oldest first, as
 * the history writer takes them. The walk is pinned to an end date taken once, so visits arriving
 * meanwhile cannot shift the pages under it (they are the next run's).
 */

import type { ImportSource, SourceLink, SourceOptions, SourcePage, SourceVisit } from '../source';
import { SourceError } from '../source';
import { arr, baseOf, type Json, num, obj, shownAddress, str, strings, time } from './fields';
import { type HttpAnswer, SourceHttp } from './http';

/**
 * A page of the source is one transaction of the links it makes: on SQLite its commit, which
 * writes every index page its links touch, cost more a link with 50 (docs/performance.md).
 */
const LINKS_PER_PAGE = 200;
/** The page size of a run saved when pages were of 50 and cursors named the page alone. */
const OLD_LINKS_PER_PAGE = 50;
const VISITS_PER_PAGE = 300;

function describe(answer: HttpAnswer): string {
  // Shlink answers errors as problem+json: {type, title, detail, status}.
  const problem = obj(answer.body);
  const said = [str(problem?.title), str(problem?.detail)].filter((s) => s !== null).join(': ');
  const words = said === '' ? `${answer.status}` : `${answer.status} ${said}`;
  if (answer.status === 401 || answer.status === 403)
    return `Shlink refused the API key (${words}); give an API key of this Shlink (shlink api-key:generate makes one)`;
  return `Shlink refused the request (${words})`;
}

function pagination(body: Json | null): { current: number; pages: number } {
  const p = obj(body?.pagination);
  return { current: num(p?.currentPage) ?? 1, pages: num(p?.pagesCount) ?? 0 };
}

export function shlinkLink(raw: Json): SourceLink | null {
  const shortCode = str(raw.shortCode);
  if (shortCode === null) return null;
  const domain = str(raw.domain)?.toLowerCase() ?? null;
  const meta = obj(raw.meta);
  const summary = obj(raw.visitsSummary);
  return {
    sourceId: domain === null ? shortCode : `${domain}/${shortCode}`,
    url: str(raw.longUrl) ?? '',
    slug: shortCode,
    domain,
    title: str(raw.title),
    tags: strings(raw.tags),
    createdAt: time(raw.dateCreated),
    expiresAt: time(meta?.validUntil),
    clickLimit: num(meta?.maxVisits),
    archived: false,
    totalClicks: num(summary?.total) ?? num(raw.visitsCount),
    history: 'visits',
  };
}

export function shlinkVisit(raw: Json): SourceVisit | null {
  const at = time(raw.date);
  if (at === null) return null;
  const location = obj(raw.visitLocation);
  const country = str(location?.countryCode);
  return {
    sourceId: null,
    at,
    referrer: str(raw.referer),
    userAgent: str(raw.userAgent),
    country: country !== null && /^[a-z]{2}$/i.test(country) ? country.toUpperCase() : null,
    city: str(location?.cityName),
    bot: typeof raw.potentialBot === 'boolean' ? raw.potentialBot : null,
    device: null,
    browser: null,
    os: null,
  };
}

export function shlinkSource(options: SourceOptions): ImportSource {
  const base = baseOf(options.url);
  const token = options.token;
  if (base === null) throw new SourceError('shlink needs the address your Shlink answers its API on', false, 'url');
  if (token === null || token === '')
    throw new SourceError('shlink needs an API key of that Shlink (shlink api-key:generate)', false, 'token');
  const http = new SourceHttp({
    fetch: options.fetch,
    sleep: options.sleep,
    allowPrivate: options.allowPrivate ?? false,
    product: 'Shlink',
    secrets: [token],
    describe,
  });
  const headers = { 'X-Api-Key': token };
  /** Where every link's visit walk ends: the moment this source first read visits. */
  let until: string | null = null;

  async function shortUrls(page: number, size: number, signal: AbortSignal): Promise<Json | null> {
    const query = new URLSearchParams({ page: String(page), itemsPerPage: String(size), orderBy: 'dateCreated-ASC' });
    const answer = await http.get(`${base}/rest/v3/short-urls?${query}`, headers, signal, []);
    const list = obj(obj(answer.body)?.shortUrls);
    // Without its list it is not Shlink's answer: a run would end done, having read nothing.
    return list !== null && Array.isArray(list.data) ? list : null;
  }

  async function visitsPage(link: SourceLink, page: number, after: number | null, signal: AbortSignal) {
    const query = new URLSearchParams({ page: String(page), itemsPerPage: String(VISITS_PER_PAGE) });
    if (link.domain !== null) query.set('domain', link.domain);
    if (after !== null) query.set('startDate', new Date(after).toISOString());
    query.set('endDate', until!);
    const answer = await http.get(
      `${base}/rest/v3/short-urls/${encodeURIComponent(link.slug ?? '')}/visits?${query}`,
      headers,
      signal,
    );
    if (answer.status === 404) return null; // deleted since it was listed: no visits to carry
    return obj(obj(answer.body)?.visits);
  }

  /** A page's visits, oldest first, only those after `after` (Shlink's startDate is inclusive). */
  function oldestFirst(page: Json | null, after: number | null): SourceVisit[] {
    const visits: SourceVisit[] = [];
    const data = arr(page?.data);
    for (let i = data.length - 1; i >= 0; i--) {
      const raw = obj(data[i]);
      const visit = raw === null ? null : shlinkVisit(raw);
      if (visit !== null && (after === null || visit.at > after)) visits.push(visit);
    }
    return visits;
  }

  return {
    name: 'shlink',
    // Pages and each link's visits are requests of their own: the next page may be read first.
    readAhead: true,
    async check(signal) {
      const body = await shortUrls(1, 1, signal);
      if (body === null)
        throw new SourceError(
          `${shownAddress(base)} did not answer as Shlink's REST API v3 does; check the address`,
          false,
          'url',
        );
    },
    async page(cursor, signal): Promise<SourcePage> {
      // A cursor is `page:size`; a page alone is one of a run saved with pages of 50, resumed
      // with them (the same page at another size would skip or repeat links).
      const [at, given] = cursor === null ? ['1', String(LINKS_PER_PAGE)] : cursor.split(':');
      const page = Number(at);
      const size = given === undefined ? OLD_LINKS_PER_PAGE : Number(given);
      if (!Number.isInteger(page) || page < 1 || !Number.isInteger(size) || size < 1)
        throw new SourceError(`shlink: a cursor ${cursor} is not a page`, false);
      const body = await shortUrls(page, size, signal);
      if (body === null)
        throw new SourceError(
          `${shownAddress(base)} did not answer as Shlink's REST API v3 does; check the address`,
          false,
          'url',
        );
      const links = arr(body.data)
        .map((raw) => (obj(raw) === null ? null : shlinkLink(obj(raw)!)))
        .filter((link): link is SourceLink => link !== null);
      const { current, pages } = pagination(body);
      return { links, next: current < pages ? `${current + 1}:${size}` : null };
    },
    async *visits(link, after, signal) {
      until ??= new Date().toISOString();
      if (link.totalClicks === 0) return; // nothing to walk: not even one request
      const first = await visitsPage(link, 1, after, signal);
      const { pages } = pagination(first);
      for (let page = pages; page > 1; page--) {
        const visits = oldestFirst(await visitsPage(link, page, after, signal), after);
        if (visits.length > 0) yield visits;
      }
      const visits = oldestFirst(first, after);
      if (visits.length > 0) yield visits;
    },
  };
}
