/**
 * The password step of a redirect (docs/behaviour.md, "Password-protected links"), reached only
 * for links whose `extras` byte has HAS_PASSWORD (redirect.ts): every other link pays that one
 * byte read. A visitor gets through with an unlock cookie, the form's right password (POST), or
 * an API client's `X-Slink-Password` header; otherwise the form, recording nothing.
 *
 * Passwords are checked under the throttle (throttle.ts: decided before anything is verified)
 * and in the process's verification slots, shared with sign-in (sessions/verification-slots.ts):
 * argon2id on a low-priority Worker, so a flood of guesses cannot starve redirects, and with
 * waiting places of their own, so it cannot starve sign-in either. A check beyond those places
 * is refused at once (429); one that waited and still got no answer (no slot in time, the
 * verifier stopped) is answered 503 with Retry-After: the visitor did nothing wrong.
 * After any wait the link is found again by its slug and must still be the one asked about (same
 * id, same hash): a link changed meanwhile is answered as it is now, never as it was.
 */

import { clientAddress, pathOf, type ServerLike } from '../../../http/client';
import { errorResponse } from '../../../http/errors';
import { BoundedCache } from '../../../lib/bounded-cache';
import { AppError, RateLimitedError, VerificationUnavailableError } from '../../../lib/errors';
import { PASSWORD_LIMITS } from '../../links/public';
import { RETRY_AFTER_S, type SlotRefusal } from '../../sessions/public';
import type { RedirectDeps } from '../deps';
import { readPasswordForm } from './form-body';
import { type FormProblem, formResponse } from './form-page';
import { carriesUnlock, isSecureHost, UNLOCK_COOKIE, unlockCookie } from './unlock-cookie';

/** The redirect past the password step, for the link in `slot` (redirect.ts `answer`). */
export type Proceed = (
  request: Request,
  server: ServerLike | null,
  slot: number,
  code: string | null,
) => Response | Promise<Response>;

const HEADER = 'x-slink-password';
// A link's password is 8-128 characters: anything else is wrong without a check.
const { min: MIN_PASSWORD, max: MAX_PASSWORD } = PASSWORD_LIMITS;
const COOKIE_PREFIX = `${UNLOCK_COOKIE}=`;

/** How the password came: the form (a browser: it gets the cookie) or the header (an API client). */
type Via = 'form' | 'header';

/** The slug as the request path has it (the cookie's Path must be what the browser asked for). */
function slugOf(url: string): string {
  return pathOf(url).split('/')[1]!;
}

function busyError(): RateLimitedError {
  return new RateLimitedError('Too many password checks at once: retry in a second', 1);
}

function unavailableError(): VerificationUnavailableError {
  return new VerificationUnavailableError(
    `The server is too busy to check the password now: retry in ${RETRY_AFTER_S} s`,
    RETRY_AFTER_S,
  );
}

const refusedFor = (why: SlotRefusal): Error => (why === 'full' ? busyError() : unavailableError());

/** The answer to a password that did not get through, in the shape its sender reads. */
function refusal(via: Via, slug: string, problem: FormProblem): Response {
  if (via === 'form') return formResponse(slug, problem);
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  if (problem.kind === 'unavailable') {
    headers['retry-after'] = String(problem.retryAfter);
    return errorResponse(unavailableError(), headers);
  }
  if (problem.kind === 'throttled' || problem.kind === 'busy') {
    headers['retry-after'] = String(problem.retryAfter);
    const message =
      problem.kind === 'busy' ? busyError().message : `Too many wrong passwords: retry in ${problem.retryAfter} s`;
    return errorResponse(new RateLimitedError(message, problem.retryAfter), headers);
  }
  return errorResponse(new AppError('password_wrong', 'The password is wrong', 'X-Slink-Password'), headers);
}

/** A redirect answered past the password: never cached (it depends on the cookie or the header). */
function unlocked(response: Response, cookie: string | null, posted: boolean): Response {
  const headers = new Headers(response.headers);
  headers.set('cache-control', 'no-store');
  if (cookie !== null) headers.append('set-cookie', cookie);
  // 307 and 308 would make the browser send the form, password included, on to the destination.
  const status = posted && (response.status === 307 || response.status === 308) ? 303 : response.status;
  return new Response(response.body, { status, headers });
}

export function createPasswordGate(deps: RedirectDeps, proceed: Proceed) {
  const { linkIndex, clock, config, domains, linkPasswordThrottle: throttle, verificationSlots: slots } = deps;
  /** Whether the link's cookie may carry Secure: its domain's short URLs are https. */
  const secureFor = (slot: number): boolean => isSecureHost(domains.originOf(linkIndex.table.domainId[slot]!));
  // Password hash -> its cookie key: derived once per link and password, not per request.
  const keys = new BoundedCache<string, string>(4096);
  const keyOf = (hash: string): string | Promise<string> =>
    keys.get(hash) ??
    deps.stores.unlockKey(hash).then((key) => {
      keys.set(hash, key);
      return key;
    });

  /**
   * The link's slot now, if the slug still names the same link with the same password on the
   * same domain; else -1.
   */
  const still = (domainId: number, slug: string, linkId: string, hash: string): number => {
    const slot = linkIndex.find(slug, domainId);
    const links = linkIndex.table;
    return slot >= 0 && links.linkId(slot) === linkId && links.passwordHash.get(slot) === hash ? slot : -1;
  };

  const withCookie = async (request: Request, server: ServerLike | null, slot: number, code: string | null) => {
    const links = linkIndex.table;
    const linkId = links.linkId(slot);
    const domainId = links.domainId[slot]!;
    const hash = links.passwordHash.get(slot)!;
    const slug = slugOf(request.url);
    const key = await keyOf(hash);
    const now = still(domainId, slug, linkId, hash);
    if (now < 0 || !carriesUnlock(request.headers.get('cookie'), linkId, key, clock.now())) return formResponse(slug);
    return unlocked(await proceed(request, server, now, code), null, false);
  };

  const attempt = async (
    request: Request,
    server: ServerLike | null,
    slot: number,
    code: string | null,
    via: Via,
  ): Promise<Response> => {
    const links = linkIndex.table;
    const linkId = links.linkId(slot);
    const domainId = links.domainId[slot]!;
    const hash = links.passwordHash.get(slot)!;
    const slug = slugOf(request.url);
    const address = clientAddress(request, server, config.trustProxy);
    // Refused before the body is read or anything verified.
    const wait = throttle.wait(linkId, address);
    if (wait > 0) return refusal(via, slug, { kind: 'throttled', retryAfter: wait });
    let password: string;
    if (via === 'header') password = request.headers.get(HEADER)!;
    else {
      const form = await readPasswordForm(request);
      if (typeof form === 'string') return formResponse(slug, { kind: form });
      password = form.password;
    }
    const started = await throttle.start(linkId, address);
    if (typeof started === 'number') return refusal(via, slug, { kind: 'throttled', retryAfter: started });
    let right: boolean;
    try {
      right =
        password.length >= MIN_PASSWORD &&
        password.length <= MAX_PASSWORD &&
        (await slots.run('link', () => deps.verifyPassword(password, hash), refusedFor));
    } catch (err) {
      // Nothing was decided: the attempt does not count.
      await started.cancelled();
      if (err instanceof RateLimitedError) return refusal(via, slug, { kind: 'busy', retryAfter: err.retryAfter });
      if (err instanceof VerificationUnavailableError)
        return refusal(via, slug, { kind: 'unavailable', retryAfter: err.retryAfter });
      throw err;
    }
    if (!right) return refusal(via, slug, { kind: 'wrong' });
    const now = still(domainId, slug, linkId, hash);
    if (now < 0) {
      // Changed while its password was checked: the visitor is asked again, for the link as it is.
      await started.cancelled();
      return formResponse(slug);
    }
    await started.succeeded();
    const cookie = via === 'form' ? unlockCookie(slug, linkId, await keyOf(hash), clock.now(), secureFor(now)) : null;
    return unlocked(await proceed(request, server, now, code), cookie, via === 'form');
  };

  /** The answer for a protected link's request past the paused, expiry and click-limit checks. */
  return (
    request: Request,
    server: ServerLike | null,
    slot: number,
    code: string | null,
  ): Response | Promise<Response> => {
    const method = request.method;
    // HEAD shows no destination and spends no verification: a protected link answers it as the form.
    if (method === 'HEAD') return formResponse(slugOf(request.url), null, true);
    if (method === 'POST') return attempt(request, server, slot, code, 'form');
    if (request.headers.has(HEADER)) return attempt(request, server, slot, code, 'header');
    if (request.headers.get('cookie')?.includes(COOKIE_PREFIX)) return withCookie(request, server, slot, code);
    return formResponse(slugOf(request.url));
  };
}
