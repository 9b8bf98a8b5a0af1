/**
 * How every API source talks to its product: one GET at a time, with
 * - only http(s) addresses, and none that is or resolves to a loopback, private or link-local
 *   address unless the service allows it (the old service's switch, as
 *   read-through's: SLINK_UPSTREAM_ALLOW_PRIVATE; the address ranges of lib/private-address.ts), so an import cannot be
 *   pointed at the inside of the network it runs in. The host is resolved and judged before its
 *   first request (fetch has no hook to pin the connection to the address checked, as webhook
 *   deliveries do through node:http), and redirects are never followed;
 * - a timeout per request, retries of a 5xx or a failed connection, and the product's rate limit
 *   waited out (429 with Retry-After, or whatever the product says instead), all through the
 *   injected `sleep` so tests never wait on the clock;
 * - every error a SourceError a person can act on, with the token cut out of it: a product may
 *   echo what it was sent, and an error message ends up in the run's report.
 */

import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPrivateAddress } from '../../../lib/private-address';
import { SourceError, WaitRefused } from '../source';
import { shownAddress } from './fields';
import { parseJsonLenient } from './json';

/** A request's own deadline (a product's slow page must not hold a run for ever). */
const TIMEOUT_MS = 30_000;
/** Attempts at a request that fails with a 5xx or no answer, before the run stops on it. */
const ATTEMPTS = 4;
/** The first wait after a 5xx; doubled at each attempt. */
const FIRST_BACKOFF_MS = 1000;
/** Rate-limit answers waited out in a row for one request before giving up. */
const RATE_LIMIT_WAITS = 30;
/** The wait when a product says "too many" without saying for how long (Bitly's window is a minute). */
const DEFAULT_RATE_WAIT_MS = 60_000;
/** The longest single wait a Retry-After may ask for (Bitly's hourly limit). */
const MAX_RATE_WAIT_MS = 3_600_000;

export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** The body parsed as JSON (leniently: control characters in strings kept), or null when it is not JSON. */
  body: unknown;
  text: string;
}

export interface SourceHttpOptions {
  fetch: typeof fetch;
  sleep: (ms: number) => Promise<void>;
  allowPrivate: boolean;
  /** The product's name, as a person knows it ("Shlink"), for messages. */
  product: string;
  /** Values never to appear in a message (the token, a password). */
  secrets: readonly (string | null)[];
  /** Whether an answer is the product's "too many requests" (default: status 429). */
  isRateLimited?: (answer: HttpAnswer) => boolean;
  /** The message of a refused request (4xx but 404 handled by the caller): what the product said and what to do. */
  describe: (answer: HttpAnswer) => string;
  timeoutMs?: number;
  /** Rate-limit answers waited out in a row before giving up (default 30: half an hour of minutes). */
  rateLimitWaits?: number;
}

/** The wait a Retry-After asks for: seconds, an HTTP date, or (Dub) the epoch in milliseconds when the window resets. */
export function retryAfterMs(value: string | null, now: number): number {
  if (value === null || value.trim() === '') return DEFAULT_RATE_WAIT_MS;
  const text = value.trim();
  let wait: number;
  if (/^\d+(\.\d+)?$/.test(text)) {
    const n = Number(text);
    if (n > 1e12) wait = n - now;
    else if (n > 1e9) wait = n * 1000 - now;
    else wait = n * 1000;
  } else {
    const at = Date.parse(text);
    wait = Number.isNaN(at) ? DEFAULT_RATE_WAIT_MS : at - now;
  }
  return Math.min(MAX_RATE_WAIT_MS, Math.max(0, Math.ceil(wait)));
}

export class SourceHttp {
  /** Hosts already found public (or allowed), so a run resolves each once. */
  private readonly checkedHosts = new Set<string>();

  constructor(private readonly options: SourceHttpOptions) {}

  /** A message with every secret cut out. */
  redact(message: string): string {
    let out = message;
    for (const secret of this.options.secrets) {
      if (secret === null || secret.length < 4) continue;
      // As sent, and as a query string carries it (YOURLS's signature travels there).
      const forms = [secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2)];
      for (const form of forms) out = out.split(form).join('[token]');
    }
    return out;
  }

  /** Throws a SourceError with the secrets cut out, naming the input at fault (the address unless told). */
  fail(message: string, retryable: boolean, field: 'url' | 'token' = 'url'): never {
    throw new SourceError(this.redact(message), retryable, field);
  }

  /** Refuses a URL that is not http(s), or whose host is (or resolves to) an internal address when not allowed. */
  async checkUrl(raw: string): Promise<URL> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return this.fail(`${this.options.product}: ${shownAddress(raw)} is not an absolute URL`, false);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      this.fail(`${this.options.product}: only http and https addresses can be read, not ${url.protocol}`, false);
    if (this.options.allowPrivate || this.checkedHosts.has(url.hostname)) return url;
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    let addresses: string[];
    if (isIP(host) !== 0) addresses = [host];
    else {
      try {
        addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
      } catch {
        return this.fail(`${this.options.product}: the host ${host} could not be resolved; check the address`, true);
      }
    }
    const inside = addresses.find((a) => isPrivateAddress(a));
    if (inside !== undefined)
      this.fail(
        `${this.options.product}: ${host} leads to an internal address (${inside}); set SLINK_UPSTREAM_ALLOW_PRIVATE=1 to allow imports from the inside network`,
        false,
      );
    this.checkedHosts.add(url.hostname);
    return url;
  }

  /**
   * GETs a URL and answers its parsed body when 2xx. A status in `pass` (default 404: a link
   * deleted mid-run) is answered to the caller; any other 4xx is a SourceError carrying the
   * product's words; a 5xx or no answer is tried again, then a retryable SourceError.
   */
  async get(
    raw: string,
    headers: Record<string, string>,
    signal: AbortSignal,
    pass: readonly number[] = [404],
  ): Promise<HttpAnswer> {
    const url = await this.checkUrl(raw);
    let failures = 0;
    let rateWaits = 0;
    for (;;) {
      const answer = await this.attempt(url, headers, signal).catch((error: unknown) => {
        if (signal.aborted) throw signal.reason ?? error;
        return error instanceof Error ? error : new Error(String(error));
      });
      if (answer instanceof Error) {
        failures++;
        if (failures >= ATTEMPTS)
          this.fail(
            `${this.options.product} did not answer at ${url.origin} (${answer.message}); try again later`,
            true,
          );
        await this.options.sleep(FIRST_BACKOFF_MS * 2 ** (failures - 1));
        continue;
      }
      const limited = this.options.isRateLimited?.(answer) ?? answer.status === 429;
      if (limited) {
        rateWaits++;
        if (rateWaits > (this.options.rateLimitWaits ?? RATE_LIMIT_WAITS))
          this.fail(`${this.options.product} kept refusing for its rate limit; try again later`, true);
        const wait = retryAfterMs(answer.headers.get('retry-after'), Date.now());
        try {
          await this.options.sleep(wait);
        } catch (err) {
          if (!(err instanceof WaitRefused)) throw err;
          this.fail(
            `${this.options.product} refuses requests for its rate limit for ${Math.ceil(wait / 1000)} s: start the import again then`,
            true,
          );
        }
        continue;
      }
      if (answer.status >= 500) {
        failures++;
        if (failures >= ATTEMPTS)
          this.fail(
            `${this.options.product} answered ${answer.status} at ${url.origin}${url.pathname}; try again later`,
            true,
          );
        await this.options.sleep(FIRST_BACKOFF_MS * 2 ** (failures - 1));
        continue;
      }
      if (answer.status >= 300 && answer.status < 400)
        // Not followed: a redirect could lead anywhere, the inside network included.
        this.fail(
          `${this.options.product} answered ${url.origin} with a redirect to ${answer.headers.get('location') ?? 'nowhere'}; give the address it redirects to`,
          false,
        );
      if (answer.status >= 400 && !pass.includes(answer.status))
        this.fail(
          this.options.describe(answer),
          false,
          answer.status === 401 || answer.status === 403 ? 'token' : 'url',
        );
      return answer;
    }
  }

  /**
   * One request, aborted by the run's signal or its timeout. Its own controller, let go once it
   * is answered: AbortSignal.any tied every request's signal to the run's for the whole run
   * (one kept per request, each with its timer: memory growing with the links imported).
   */
  private async attempt(url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<HttpAnswer> {
    const controller = new AbortController();
    const stop = () => controller.abort(signal.reason);
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    const timer = setTimeout(
      () => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')),
      this.options.timeoutMs ?? TIMEOUT_MS,
    );
    try {
      const response = await this.options.fetch(url.href, {
        method: 'GET',
        headers: { accept: 'application/json', ...headers },
        redirect: 'manual',
        signal: controller.signal,
      });
      const text = await response.text();
      let body: unknown = null;
      try {
        body = parseJsonLenient(text);
      } catch {
        body = null;
      }
      return { status: response.status, headers: response.headers, body, text };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
    }
  }
}
