/**
 * One delivery attempt: a signed POST of an event to a webhook's URL (docs/behaviour.md,
 * "Webhooks"). node:http(s) rather than fetch, for its `lookup`: the connection goes to the
 * address that was checked (lib/pinned-lookup.ts), never to a second resolution's answer.
 * Any 2xx within the timeout is success; the rest (another status, a refused or timed-out
 * connection, an internal address) is a failure with its reason. What the receiver answered is
 * read only in part: the start of the body (KEPT_RESPONSE_BYTES) for the delivery log, then the
 * connection is closed.
 */
import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { internalLiteral, pinnedLookup } from '../../lib/pinned-lookup';
import { signDelivery } from './signature';

export const DELIVERY_TIMEOUT_MS = 10_000;
/** The part of a receiver's answer the delivery log keeps. */
export const KEPT_RESPONSE_BYTES = 2048;

export interface DeliveryRequest {
  url: string;
  secret: string;
  /** A rotation's replaced secret while it still signs too (a second signature); null when none. */
  previousSecret?: string | null;
  /** The event's id: webhook-id, the same on every attempt, so a receiver can drop a repeat. */
  eventId: string;
  body: string;
  /** Seconds, the webhook-timestamp of this attempt. */
  timestamp: number;
  allowPrivate: boolean;
  timeoutMs?: number;
}

export interface DeliveryOutcome {
  ok: boolean;
  /** The receiver's status, or null when none came (refused, timed out, internal address). */
  status: number | null;
  /** Why it failed, or null. */
  error: string | null;
  durationMs: number;
  /** The start of the receiver's body (KEPT_RESPONSE_BYTES at most). */
  response: string;
}

/**
 * Certificate verification failures (OpenSSL's X509 codes, and a name the certificate does not
 * cover): worded as such, since their codes alone do not tell a receiver's owner what to fix.
 */
const CERTIFICATE_CODE = /CERT|_SIGNATURE$|^INVALID_CA$|^HOSTNAME_MISMATCH$/;

function failureReason(err: NodeJS.ErrnoException): string {
  if (err.code === 'EPRIVATE') return err.message;
  if (err.code !== undefined && CERTIFICATE_CODE.test(err.code))
    return `the receiver's TLS certificate is not trusted: ${err.message} (${err.code})`;
  return `${err.code ?? 'error'}: ${err.message}`;
}

export async function deliver(req: DeliveryRequest): Promise<DeliveryOutcome> {
  const started = performance.now();
  const url = new URL(req.url);
  // An address written in the URL is connected to without any lookup: checked here instead.
  const literal = req.allowPrivate ? null : internalLiteral(url);
  if (literal !== null)
    return {
      ok: false,
      status: null,
      error: `${literal} is an internal address, refused`,
      durationMs: 0,
      response: '',
    };
  const secrets = req.previousSecret ? [req.secret, req.previousSecret] : [req.secret];
  const signed = await signDelivery(secrets, req.eventId, req.timestamp, req.body);
  return post(url, signed, req, started);
}

/** The POST itself, under one deadline for the whole attempt. */
function post(
  url: URL,
  signed: { headers: Record<string, string>; body: Uint8Array },
  req: DeliveryRequest,
  started: number,
): Promise<DeliveryOutcome> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const timeoutMs = req.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: Omit<DeliveryOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: Math.round(performance.now() - started) });
    };
    const headers = {
      ...signed.headers,
      'content-length': String(signed.body.length),
      'user-agent': 'Slink-Webhooks/1',
    };
    const outgoing = send(
      url,
      { method: 'POST', headers, lookup: pinnedLookup(req.allowPrivate) as never },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        const answered = () => {
          const status = res.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          done({
            ok,
            status,
            error: ok ? null : `answered ${status}`,
            response: Buffer.concat(chunks).toString('utf8'),
          });
        };
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk.subarray(0, KEPT_RESPONSE_BYTES - kept));
          kept += Math.min(chunk.length, KEPT_RESPONSE_BYTES - kept);
          // What is kept is all that is read: the rest of a long (or endless) answer is not
          // waited for, the connection is closed instead, so it holds no slot nor bandwidth.
          if (kept >= KEPT_RESPONSE_BYTES) {
            answered();
            res.destroy();
            outgoing.destroy();
          }
        });
        res.on('end', answered);
        res.on('error', (err) => done({ ok: false, status: res.statusCode ?? null, error: err.message, response: '' }));
      },
    );
    // One deadline for the whole attempt, connection and answer alike.
    const timer = setTimeout(() => {
      done({ ok: false, status: null, error: `no answer within ${timeoutMs / 1000} s`, response: '' });
      outgoing.destroy();
    }, timeoutMs);
    outgoing.on('error', (err: NodeJS.ErrnoException) =>
      done({ ok: false, status: null, error: failureReason(err), response: '' }),
    );
    outgoing.end(signed.body);
  });
}
