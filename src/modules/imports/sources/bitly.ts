/**
 * Bitly, through its API v4 (Bearer token): every group's bitlinks, 100 a page (`search_after`),
 * archived ones included, and each movable link's clicks per day.
 *
 * Only a link on a branded domain can move: nobody but Bitly answers bit.ly, so a bit.ly link is
 * listed with the reason it cannot move (the engine reports it). A custom back-half a person
 * chose on a branded domain becomes the slug; a bitlink with several branded addresses gives one
 * link each, its clicks carried once (by the first). Bitly keeps clicks only per day (as far back
 * as the account's plan shows), so history is daily counts. Bitly's limits: about 150 requests a
 * minute on the bitlinks list, answered 429 or `403 RATE_LIMIT_EXCEEDED`, both waited out.
 */

import type { ImportSource, SourceDay, SourceLink, SourceOptions, SourcePage } from '../source';
import { SourceError } from '../source';
import { arr, baseOf, hostOf, type Json, num, obj, pathOf, shownAddress, str, strings, time } from './fields';
import { type HttpAnswer, SourceHttp } from './http';

const API = 'https://api-ssl.bitly.com';
const PAGE_SIZE = 100;
/** The short domains Bitly itself answers: links on them stay at Bitly. */
const BITLY_DOMAINS = new Set(['bit.ly', 'j.mp', 'bitly.com', 'bitly.is']);

function describe(answer: HttpAnswer): string {
  // Bitly's errors: {message, description, resource}, message an upper-case code.
  const body = obj(answer.body);
  const said = [str(body?.message), str(body?.description)].filter((s) => s !== null).join(': ');
  const words = said === '' ? `${answer.status}` : `${answer.status} ${said}`;
  if (answer.status === 401 || answer.status === 403)
    return `Bitly refused the access token (${words}); give an access token from Bitly's Settings > Developer settings > API`;
  return `Bitly refused the request (${words})`;
}

function isRateLimited(answer: HttpAnswer): boolean {
  return answer.status === 429 || (answer.status === 403 && str(obj(answer.body)?.message) === 'RATE_LIMIT_EXCEEDED');
}

/** Where a page of a group starts: the group and Bitly's search_after within it. */
interface Cursor {
  group: string;
  after: string | null;
}

function parseCursor(cursor: string): Cursor {
  try {
    const value = obj(JSON.parse(cursor));
    const group = str(value?.group);
    if (group !== null) return { group, after: str(value?.after) };
  } catch {}
  throw new SourceError(`bitly: ${cursor} is not a position in the list`, false);
}

/** A bitlink's addresses as `host/back-half`, lowercase host. */
function address(raw: string): { domain: string; slug: string } | null {
  const domain = hostOf(raw);
  const slug = pathOf(raw);
  return domain === null || slug === null ? null : { domain, slug };
}

/** One bitlink as the links Slink can take: one per branded address, or one that cannot move. */
export function bitlyLinks(raw: Json): SourceLink[] {
  const id = str(raw.id);
  const own = id === null ? null : address(id);
  if (id === null || own === null) return [];
  const base = {
    url: str(raw.long_url) ?? '',
    title: str(raw.title),
    tags: strings(raw.tags),
    createdAt: time(raw.created_at),
    expiresAt: time(raw.expiration_at),
    clickLimit: null,
    archived: raw.archived === true,
    totalClicks: null,
  };
  const branded: { domain: string; slug: string }[] = [];
  for (const candidate of [...strings(raw.custom_bitlinks), id]) {
    const a = address(candidate);
    if (a === null || BITLY_DOMAINS.has(a.domain)) continue;
    if (!branded.some((b) => b.domain === a.domain && b.slug === a.slug)) branded.push(a);
  }
  if (branded.length === 0)
    return [
      {
        ...base,
        sourceId: id,
        slug: own.slug,
        domain: own.domain,
        history: 'none',
        cannotMove: `${id} is on ${own.domain}, which only Bitly answers: only links on a branded domain can move`,
      },
    ];
  return branded.map((a, i) => ({
    ...base,
    // The first carries the bitlink's id (its clicks are read by it); the others their own address.
    sourceId: i === 0 ? id : `${a.domain}/${a.slug}`,
    slug: a.slug,
    domain: a.domain,
    history: i === 0 ? 'daily' : 'none',
  }));
}

export function bitlySource(options: SourceOptions): ImportSource {
  const api = `${baseOf(options.url) ?? API}/v4`;
  const token = options.token;
  if (token === null || token === '')
    throw new SourceError('bitly needs an access token from Bitly (Settings > API)', false, 'token');
  const http = new SourceHttp({
    fetch: options.fetch,
    sleep: options.sleep,
    allowPrivate: options.allowPrivate ?? false,
    product: 'Bitly',
    secrets: [token],
    describe,
    isRateLimited,
    // Bitly also limits per hour (about 1,500 on the bitlinks list): a refused minute may last an hour.
    rateLimitWaits: 70,
  });
  const headers = { authorization: `Bearer ${token}` };
  let groups: string[] | null = null;

  async function groupList(signal: AbortSignal): Promise<string[]> {
    if (groups !== null) return groups;
    const answer = await http.get(`${api}/groups`, headers, signal, []);
    const list = obj(answer.body)?.groups;
    if (!Array.isArray(list))
      throw new SourceError(
        `${shownAddress(api)} did not answer as Bitly's API v4 does; check the address`,
        false,
        'url',
      );
    groups = list.map((g) => str(obj(g)?.guid)).filter((g): g is string => g !== null);
    return groups;
  }

  return {
    name: 'bitly',
    // About 150 requests a minute: a few links' clicks at once, the rest waits out its 429s.
    historyInFlight: 4,
    async check(signal) {
      await groupList(signal);
    },
    async page(cursor, signal): Promise<SourcePage> {
      const all = await groupList(signal);
      const at = cursor === null ? (all[0] === undefined ? null : { group: all[0], after: null }) : parseCursor(cursor);
      if (at === null) return { links: [], next: null };
      const query = new URLSearchParams({ size: String(PAGE_SIZE), archived: 'both' });
      if (at.after !== null) query.set('search_after', at.after);
      const answer = await http.get(`${api}/groups/${encodeURIComponent(at.group)}/bitlinks?${query}`, headers, signal);
      const body = obj(answer.body);
      const links = arr(body?.links).flatMap((raw) => (obj(raw) === null ? [] : bitlyLinks(obj(raw)!)));
      const paging = obj(body?.pagination);
      let after = str(paging?.search_after);
      const nextUrl = str(paging?.next);
      if (after === null && nextUrl !== null) after = new URL(nextUrl, api).searchParams.get('search_after') || null;
      if (after !== null && arr(body?.links).length > 0)
        return { links, next: JSON.stringify({ group: at.group, after }) };
      // A group gone since the cursor was saved: nothing after it is known, the list ends there.
      const index = all.indexOf(at.group);
      const following = index === -1 ? undefined : all[index + 1];
      return { links, next: following === undefined ? null : JSON.stringify({ group: following, after: null }) };
    },
    async days(link, after, signal): Promise<SourceDay[]> {
      const query = new URLSearchParams({ unit: 'day', units: '-1' });
      const answer = await http.get(`${api}/bitlinks/${link.sourceId}/clicks?${query}`, headers, signal);
      if (answer.status === 404) return [];
      const byDay = new Map<string, number>();
      for (const raw of arr(obj(answer.body)?.link_clicks)) {
        const at = time(obj(raw)?.date);
        const clicks = num(obj(raw)?.clicks);
        if (at === null || clicks === null || clicks <= 0) continue;
        const day = new Date(at).toISOString().slice(0, 10);
        if (after !== null && day <= after) continue;
        byDay.set(day, (byDay.get(day) ?? 0) + clicks);
      }
      // Bitly lists days newest first.
      return [...byDay].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, clicks]) => ({ day, clicks }));
    },
  };
}
