/**
 * One question to a domain's upstream (docs/behaviour.md, "Read-through"): `GET <upstream>/<slug>`,
 * redirects not followed, under one deadline for the whole exchange (resolution, connection,
 * headers). Only the status and the Location are read: the body is never waited for, the
 * connection is closed as soon as the headers are in. The connection goes to the address that
 * was checked (lib/pinned-lookup.ts), refused when internal unless SLINK_UPSTREAM_ALLOW_PRIVATE=1.
 */
import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { internalLiteral, pinnedLookup } from '../../../lib/pinned-lookup';
import { hasControlChars } from '../../../lib/text';

/**
 * found: the upstream redirects this slug (Location resolved against the asked URL);
 * missing: it answers something else that is its own answer (a 404, a page): remembered;
 * failed: no usable answer (refused, timed out, an internal address, a 5xx, a 429, a bad
 * Location, a redirect to the very address asked): answered as an unknown slug, asked again
 * after a short while.
 */
export type UpstreamAnswer =
  | { kind: 'found'; location: string }
  | { kind: 'missing'; status: number }
  | { kind: 'failed'; reason: string };

const REDIRECTS = new Set([301, 302, 307, 308]);

export interface AskOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

/** The upstream's answer for a slug as read-through takes it. */
function answerOf(asked: URL, status: number, location: string | undefined): UpstreamAnswer {
  if (REDIRECTS.has(status)) {
    if (location === undefined || location === '') return { kind: 'failed', reason: `${status} without a Location` };
    if (hasControlChars(location)) return { kind: 'failed', reason: 'a Location with control characters' };
    let target: URL;
    try {
      target = new URL(location, asked);
    } catch {
      return { kind: 'failed', reason: 'a Location that is no URL' };
    }
    // The address asked again (a query added or not): a link there would send every visit back
    // to the old service, which answers with the same redirect, for as long as it runs.
    if (target.origin === asked.origin && target.pathname === asked.pathname)
      return { kind: 'failed', reason: 'a redirect to the address asked' };
    return { kind: 'found', location: target.href };
  }
  // Busy or broken: not an answer about this slug.
  if (status >= 500 || status === 429 || status === 408) return { kind: 'failed', reason: `answered ${status}` };
  return { kind: 'missing', status };
}

export function askUpstream(upstream: string, slug: string, options: AskOptions): Promise<UpstreamAnswer> {
  const url = new URL(`/${slug}`, upstream);
  const literal = options.allowPrivate ? null : internalLiteral(url);
  if (literal !== null)
    return Promise.resolve({ kind: 'failed', reason: `${literal} is an internal address, refused` });
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: UpstreamAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outgoing.destroy();
      resolve(answer);
    };
    const outgoing = send(
      url,
      {
        method: 'GET',
        headers: { 'user-agent': 'Slink-ReadThrough/1', accept: '*/*' },
        lookup: pinnedLookup(options.allowPrivate) as never,
      },
      (res: IncomingMessage) => {
        const location = res.headers.location;
        done(answerOf(url, res.statusCode ?? 0, Array.isArray(location) ? location[0] : location));
        res.destroy();
      },
    );
    const timer = setTimeout(
      () => done({ kind: 'failed', reason: `no answer within ${options.timeoutMs / 1000} s` }),
      options.timeoutMs,
    );
    outgoing.on('error', (err: NodeJS.ErrnoException) =>
      done({ kind: 'failed', reason: `${err.code ?? 'error'}: ${err.message}` }),
    );
    outgoing.end();
  });
}
