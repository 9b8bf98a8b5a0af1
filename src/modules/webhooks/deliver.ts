/**
 * One delivery attempt: a signed POST of an event to a webhook's URL (docs/behaviour.md,
 * "Webhooks"). node:http(s) rather than fetch, for its `lookup`: the connection goes to the
 * address that was checked (url.ts pinnedLookup), never to a second resolution's answer.
 * Any 2xx within the timeout is success; the rest (another status, a refused or timed-out
 * connection, an internal address) is a failure with its reason. What the receiver answered is
 * kept only in part: the delivery log holds the start of the body, not all of it.
 */
import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { isPrivateAddress } from '../../lib/private-address';
import { deliveryHeaders } from './signature';
import { pinnedLookup } from './url';

export const DELIVERY_TIMEOUT_MS = 10_000;
/** The part of a receiver's answer the delivery log keeps. */
export const KEPT_RESPONSE_BYTES = 2048;

export interface DeliveryRequest {
  url: string;
  secret: string;
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

export function deliver(req: DeliveryRequest): Promise<DeliveryOutcome> {
  const started = performance.now();
  const url = new URL(req.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const timeoutMs = req.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  // An address written in the URL is connected to without any lookup: checked here instead.
  const literal = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (!req.allowPrivate && isIP(literal) !== 0 && isPrivateAddress(literal))
    return Promise.resolve({
      ok: false,
      status: null,
      error: `${literal} is an internal address, refused`,
      durationMs: 0,
      response: '',
    });
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: Omit<DeliveryOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: Math.round(performance.now() - started) });
    };
    // Encoded once, for the signature and the request alike.
    const body = Buffer.from(req.body);
    const headers = {
      ...deliveryHeaders(req.secret, req.eventId, req.timestamp, body),
      'content-length': String(body.length),
      'user-agent': 'Slink-Webhooks/1',
    };
    const outgoing = send(
      url,
      { method: 'POST', headers, lookup: pinnedLookup(req.allowPrivate) as never },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept < KEPT_RESPONSE_BYTES) {
            chunks.push(chunk.subarray(0, KEPT_RESPONSE_BYTES - kept));
            kept += Math.min(chunk.length, KEPT_RESPONSE_BYTES - kept);
          }
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          done({
            ok,
            status,
            error: ok ? null : `answered ${status}`,
            response: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('error', (err) => done({ ok: false, status: res.statusCode ?? null, error: err.message, response: '' }));
      },
    );
    // One deadline for the whole attempt, connection and answer alike.
    const timer = setTimeout(() => {
      done({ ok: false, status: null, error: `no answer within ${timeoutMs / 1000} s`, response: '' });
      outgoing.destroy();
    }, timeoutMs);
    outgoing.on('error', (err: NodeJS.ErrnoException) =>
      done({
        ok: false,
        status: null,
        error: err.code === 'EPRIVATE' ? err.message : `${err.code ?? 'error'}: ${err.message}`,
        response: '',
      }),
    );
    outgoing.end(body);
  });
}
