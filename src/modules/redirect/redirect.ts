/**
 * The hot path: resolve a slug from memory, capture the click as a compact record, answer 302.
 * No parsing, hashing, geo lookup or I/O happens here (docs/architecture.md, "A short link"); the flush does it.
 * The only classification on this path is for links with a click limit, which must count
 * humans exactly at the moment they are let through; the only wait is theirs too, when several
 * processes share the count (click-limit-gate.ts). Every other answer is synchronous.
 */
import type { Deps } from '../../deps';
import { clientAddress, type ServerLike } from '../../http/client';
import { blockLocation, isBotAgent } from '../clicks/public';
import type { Admission } from './click-limit-gate';
import { PAUSED } from './link-table';
import { pageResponse } from './pages';

// Header values kept per click are capped: memory per buffered click stays bounded.
const MAX_AGENT = 512;
const MAX_REFERRER = 2048;
const MAX_LANGUAGE = 256;

function capped(value: string | null, max: number): string | null {
  return value !== null && value.length > max ? value.slice(0, max) : value;
}

/** The page for a human click the click-limit gate did not let through. */
function refusal(admission: Exclude<Admission, 'admitted'>): Response {
  // Refused: the limit is reached. Gone: the link was deleted while its count was asked.
  return pageResponse(admission === 'refused' ? 'gone' : 'notFound');
}

export function createRedirect(deps: Deps) {
  const { linkIndex, clicks, clock, config, clickLimitGate } = deps;
  const buffer = clicks.buffer;
  /**
   * `admitted`: a human click the click-limit gate let through after asking another process; the
   * link is read again as it is now (still in `slot`: the gate made sure).
   */
  const answer = (
    request: Request,
    server: ServerLike | null,
    slot: number,
    code: string | null,
    admitted: boolean,
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
    if (admitted) {
      bot = false;
    } else if (!Number.isNaN(clickLimit)) {
      // The node's own count never passes the true one: at the limit, nobody needs asking.
      if (links.humanClicks[slot]! >= clickLimit) return pageResponse('gone');
      bot ??= isBotAgent(userAgent);
      if (!bot) {
        // Counted when let through; a promise only when another process must be asked.
        const admission = clickLimitGate.admit(links, slot, clickLimit);
        if (typeof admission !== 'string')
          return admission.then((decided) =>
            decided === 'admitted' ? answer(request, server, slot, code, true) : refusal(decided),
          );
        if (admission !== 'admitted') return refusal(admission);
      }
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
      return linkIndex.lookup(slug).then((found) => answer(request, server, found, code, false));
    return answer(request, server, slot, code, false);
  };
}
