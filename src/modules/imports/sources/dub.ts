/**
 * Dub, through its API (Bearer workspace key): links 100 a page by cursor (`startingAfter`, in
 * the order they were made), and each link's click events oldest first, 1,000 a page. Dub
 * answers click events only on the plans that have them (Business and up; a 403 "Need higher
 * plan" otherwise), and keeps them as long as the plan does: where there are none a link carries
 * its click total instead. Dub's Retry-After is the epoch millisecond its window resets (http.ts
 * reads either form).
 */

import type { ImportSource, SourceLink, SourceOptions, SourcePage, SourceVisit } from '../source';
import { SourceError } from '../source';
import { arr, baseOf, type Json, num, obj, shownAddress, str, time } from './fields';
import { type HttpAnswer, SourceHttp } from './http';

const API = 'https://api.dub.co';
const PAGE_SIZE = 100;
const EVENTS_PER_PAGE = 1000;

function dubError(answer: HttpAnswer): { code: string | null; message: string | null } {
  // Dub's errors: {error: {code, message, doc_url}}.
  const error = obj(obj(answer.body)?.error);
  return { code: str(error?.code), message: str(error?.message) };
}

function describe(answer: HttpAnswer): string {
  const { code, message } = dubError(answer);
  const said = [code, message].filter((s) => s !== null).join(': ');
  const words = said === '' ? `${answer.status}` : `${answer.status} ${said}`;
  if (answer.status === 401)
    return `Dub refused the API key (${words}); give a workspace API key (Settings > API Keys)`;
  return `Dub refused the request (${words})`;
}

/** Dub writes "Unknown" (and "(direct)" for a referrer) where it knows nothing. */
function known(value: unknown): string | null {
  const text = str(value);
  return text === null || text === 'Unknown' || text === '(direct)' ? null : text;
}

export function dubLink(raw: Json, events: boolean): SourceLink | null {
  const id = str(raw.id);
  if (id === null) return null;
  return {
    sourceId: id,
    url: str(raw.url) ?? '',
    slug: str(raw.key),
    domain: str(raw.domain)?.toLowerCase() ?? null,
    title: str(raw.title),
    tags: arr(raw.tags)
      .map((t) => str(obj(t)?.name))
      .filter((t): t is string => t !== null),
    createdAt: time(raw.createdAt),
    expiresAt: time(raw.expiresAt),
    clickLimit: null,
    archived: raw.archived === true,
    totalClicks: num(raw.clicks),
    history: events ? 'visits' : 'total',
  };
}

export function dubVisit(raw: Json): SourceVisit | null {
  const click = obj(raw.click);
  const at = time(raw.timestamp ?? click?.timestamp);
  if (click === null || at === null) return null;
  const country = known(click.country);
  return {
    sourceId: str(click.id),
    at,
    referrer: known(click.refererUrl) ?? known(click.referer),
    userAgent: str(click.ua),
    country: country !== null && /^[a-z]{2}$/i.test(country) ? country.toUpperCase() : null,
    city: known(click.city),
    bot: null,
    device: known(click.device),
    browser: known(click.browser),
    os: known(click.os),
  };
}

export function dubSource(options: SourceOptions): ImportSource {
  const api = baseOf(options.url) ?? API;
  const token = options.token;
  if (token === null || token === '')
    throw new SourceError('dub needs a workspace API key (Settings > API Keys)', false, 'token');
  const http = new SourceHttp({
    fetch: options.fetch,
    sleep: options.sleep,
    allowPrivate: options.allowPrivate ?? false,
    product: 'Dub',
    secrets: [token],
    describe,
  });
  const headers = { authorization: `Bearer ${token}` };
  /** Whether the workspace's plan answers click events (learnt once). */
  let eventsAnswered: boolean | null = null;
  /** Where every link's event walk ends, so events arriving meanwhile cannot shift the pages. */
  let until: string | null = null;

  async function hasEvents(signal: AbortSignal): Promise<boolean> {
    if (eventsAnswered !== null) return eventsAnswered;
    const query = new URLSearchParams({ event: 'clicks', interval: '24h', limit: '1' });
    const answer = await http.get(`${api}/events?${query}`, headers, signal, [403, 404]);
    eventsAnswered = answer.status === 200;
    return eventsAnswered;
  }

  async function links(cursor: string | null, size: number, signal: AbortSignal): Promise<Json[]> {
    const query = new URLSearchParams({ pageSize: String(size), sortBy: 'createdAt', sortOrder: 'asc' });
    if (cursor !== null) query.set('startingAfter', cursor);
    const answer = await http.get(`${api}/links?${query}`, headers, signal, []);
    if (!Array.isArray(answer.body))
      throw new SourceError(`${shownAddress(api)} did not answer as Dub's API does; check the address`, false, 'url');
    return answer.body.map(obj).filter((l): l is Json => l !== null);
  }

  return {
    name: 'dub',
    // Analytics are limited per second by plan: a few links' events at once.
    historyInFlight: 4,
    async check(signal) {
      await links(null, 1, signal);
    },
    async page(cursor, signal): Promise<SourcePage> {
      const raw = await links(cursor, PAGE_SIZE, signal);
      const events = await hasEvents(signal);
      const list = raw.map((r) => dubLink(r, events)).filter((l) => l !== null);
      const last = str(raw.at(-1)?.id);
      return { links: list, next: raw.length === PAGE_SIZE && last !== null ? last : null };
    },
    async *visits(link, after, signal) {
      until ??= new Date().toISOString();
      if (link.totalClicks === 0) return;
      for (let page = 1; ; page++) {
        const query = new URLSearchParams({
          event: 'clicks',
          linkId: link.sourceId,
          sortOrder: 'asc',
          limit: String(EVENTS_PER_PAGE),
          page: String(page),
          end: until,
        });
        if (after !== null) query.set('start', new Date(after + 1).toISOString());
        else query.set('interval', 'all');
        const answer = await http.get(`${api}/events?${query}`, headers, signal);
        if (answer.status === 404) return;
        const visits = arr(answer.body)
          .map((e) => (obj(e) === null ? null : dubVisit(obj(e)!)))
          .filter((v): v is SourceVisit => v !== null && (after === null || v.at > after));
        if (visits.length > 0) yield visits;
        if (arr(answer.body).length < EVENTS_PER_PAGE) return;
      }
    },
  };
}
