/**
 * The hot path: resolve a slug from memory, capture the click as a compact record, answer 302.
 * No parsing, hashing, geo lookup or I/O happens here (docs/architecture.md, "A short link"); the flush does it.
 * The only classification on this path is for links with a click limit, which must count
 * humans exactly at the moment they are let through.
 */
import type { Deps } from '../../deps';
import { clientAddress, type ServerLike } from '../../http/client';
import { blockLocation, isBotAgent } from '../clicks/public';
import { PAUSED } from './link-table';
import { pageResponse } from './pages';

// Header values kept per click are capped: memory per buffered click stays bounded.
const MAX_AGENT = 512;
const MAX_REFERRER = 2048;
const MAX_LANGUAGE = 256;

function capped(value: string | null, max: number): string | null {
  return value !== null && value.length > max ? value.slice(0, max) : value;
}

export function createRedirect(deps: Deps) {
  const { linkIndex, clicks, clock, config } = deps;
  const buffer = clicks.buffer;
  const answer = (
    request: Request,
    server: ServerLike | null,
    slot: number,
    code: string | null,
  ): Response | Promise<Response> => {
    const links = linkIndex.table;
    if (slot < 0 || links.status[slot] === PAUSED) return pageResponse('notFound');
    const now = clock.now();
    // NaN (no expiry) compares false.
    if (now >= links.expiresAt[slot]!) return pageResponse('gone');
    const at = links.blockAt[slot]!;
    const variantAt = code === null ? -1 : links.variantAt(slot, code);
    const location = blockLocation(links.arena, variantAt < 0 ? at : variantAt);
    const headers = request.headers;
    const userAgent = capped(headers.get('user-agent'), MAX_AGENT);
    const head = request.method === 'HEAD';
    let bot: boolean | null = head || !userAgent ? true : null;
    const clickLimit = links.clickLimit[slot]!;
    if (!Number.isNaN(clickLimit)) {
      // Single-threaded: check and increment cannot interleave, so the limit is exact.
      if (links.humanClicks[slot]! >= clickLimit) return pageResponse('gone');
      bot ??= isBotAgent(userAgent);
      if (!bot) links.humanClicks[slot]!++;
    } else if (bot === null) {
      links.unsorted[slot]!++;
    }
    buffer.push({
      time: now,
      links,
      slot,
      arena: links.arena,
      at,
      variantAt,
      location,
      code,
      address: clientAddress(request, server, config.trustProxy),
      userAgent,
      referrer: capped(headers.get('referer'), MAX_REFERRER),
      acceptLanguage: capped(headers.get('accept-language'), MAX_LANGUAGE),
      head,
      bot,
    });
    const response = new Response(null, {
      status: 302,
      headers: { location, 'cache-control': 'private, max-age=0' },
    });
    // The click is recorded either way; at saturation the answer waits for the writer (buffer.ts).
    return buffer.saturated ? buffer.drained().then(() => response) : response;
  };
  return (
    request: Request,
    server: ServerLike | null,
    slug: string,
    code: string | null,
  ): Response | Promise<Response> => {
    const slot = linkIndex.find(slug);
    // Not in memory while the index still loads (a start): read it, then answer the same way.
    if (slot < 0 && !linkIndex.loaded)
      return linkIndex.lookup(slug).then((found) => answer(request, server, found, code));
    return answer(request, server, slot, code);
  };
}
