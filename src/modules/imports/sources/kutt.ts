/**
 * Kutt, through its API v2 (`X-API-Key`): links in offset pages of 50 (Kutt's most), `all=true`
 * so an admin's key lists every user's links. Kutt keeps only a visit count per link (its
 * statistics are aggregates), so each link carries its total.
 */

import type { ImportSource, SourceLink, SourceOptions, SourcePage } from '../source';
import { SourceError } from '../source';
import { arr, baseOf, type Json, num, obj, shownAddress, str, time } from './fields';
import { type HttpAnswer, SourceHttp } from './http';

const API = 'https://kutt.it';
const PAGE_SIZE = 50;

function describe(answer: HttpAnswer): string {
  // Kutt's errors: {error: "..."}.
  const said = str(obj(answer.body)?.error);
  const words = said === null ? `${answer.status}` : `${answer.status} ${said}`;
  if (answer.status === 401 || answer.status === 403)
    return `Kutt refused the API key (${words}); give the API key from Kutt's Settings page`;
  return `Kutt refused the request (${words})`;
}

export function kuttLink(raw: Json): SourceLink | null {
  const id = str(raw.id);
  const address = str(raw.address);
  if (id === null || address === null) return null;
  return {
    sourceId: id,
    url: str(raw.target) ?? '',
    slug: address,
    domain: str(raw.domain)?.toLowerCase() ?? null,
    title: str(raw.description),
    tags: [],
    createdAt: time(raw.created_at),
    expiresAt: time(raw.expire_in),
    clickLimit: null,
    // A link Kutt's moderators banned no longer answers there.
    archived: raw.banned === true,
    totalClicks: num(raw.visit_count),
    history: 'total',
  };
}

export function kuttSource(options: SourceOptions): ImportSource {
  const base = baseOf(options.url) ?? API;
  const token = options.token;
  if (token === null || token === '')
    throw new SourceError("kutt needs the API key from Kutt's Settings page", false, 'token');
  const http = new SourceHttp({
    fetch: options.fetch,
    sleep: options.sleep,
    allowPrivate: options.allowPrivate ?? false,
    product: 'Kutt',
    secrets: [token],
    describe,
  });
  const headers = { 'X-API-Key': token };

  async function list(skip: number, limit: number, signal: AbortSignal): Promise<Json> {
    const query = new URLSearchParams({ limit: String(limit), skip: String(skip), all: 'true' });
    const answer = await http.get(`${base}/api/v2/links?${query}`, headers, signal, []);
    const body = obj(answer.body);
    if (body === null || !Array.isArray(body.data))
      throw new SourceError(
        `${shownAddress(base)} did not answer as Kutt's API v2 does; check the address`,
        false,
        'url',
      );
    return body;
  }

  return {
    name: 'kutt',
    async check(signal) {
      await list(0, 1, signal);
    },
    async page(cursor, signal): Promise<SourcePage> {
      const skip = cursor === null ? 0 : Number(cursor);
      if (!Number.isInteger(skip) || skip < 0) throw new SourceError(`kutt: ${cursor} is not an offset`, false);
      const body = await list(skip, PAGE_SIZE, signal);
      const data = arr(body.data);
      const links = data.map((raw) => (obj(raw) === null ? null : kuttLink(obj(raw)!))).filter((l) => l !== null);
      const total = num(body.total) ?? 0;
      const reached = skip + data.length;
      return { links, next: data.length > 0 && reached < total ? String(reached) : null };
    },
  };
}
