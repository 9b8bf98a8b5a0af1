/**
 * A webhook receiver for tests that drive a real server process: a Bun server on loopback (plain
 * or TLS) that keeps every request it gets and answers as the test says at that moment (a
 * status, or holding the request open until it is released), and the Standard Webhooks check
 * written again (not the code under test), as a receiver following the specification does it.
 */

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TLSOptions } from 'bun';

export interface ReceivedDelivery {
  headers: Record<string, string>;
  raw: string;
  body: any;
  /** What the receiver did with it: the status it answered, or 'held' while the request is held open. */
  answered: number | 'held';
}

/** A status to answer, or 'hold': keep the request open until release(). */
export type ReceiverMode = number | 'hold';

export interface Receiver {
  url: string;
  /** Every request so far, in the order they came. */
  received: ReceivedDelivery[];
  mode: ReceiverMode;
  /** The requests held open right now. */
  held(): number;
  /** Answers every held request with `status` (the server that sent them may be gone). */
  release(status?: number): void;
  stop(): void;
}

export function startReceiver(tls?: TLSOptions): Receiver {
  const waiting = new Set<(status: number) => void>();
  const receiver: Receiver = {
    url: '',
    received: [],
    mode: 200,
    held: () => waiting.size,
    release(status = 503) {
      for (const answer of waiting) answer(status);
      waiting.clear();
    },
    stop() {
      receiver.release();
      server.stop(true);
    },
  };
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    tls,
    async fetch(req) {
      const raw = await req.text();
      const entry: ReceivedDelivery = {
        headers: Object.fromEntries(req.headers),
        raw,
        body: JSON.parse(raw),
        answered: 'held',
      };
      receiver.received.push(entry);
      const mode = receiver.mode;
      if (mode !== 'hold') {
        entry.answered = mode;
        return new Response('noted', { status: mode });
      }
      const status = await new Promise<number>((resolve) => waiting.add(resolve));
      entry.answered = status;
      return new Response('released', { status });
    },
  });
  receiver.url = `${tls ? 'https' : 'http'}://127.0.0.1:${server.port}/hook`;
  return receiver;
}

/**
 * What a receiver does: decode the key after `whsec_`, HMAC-SHA256 `id.timestamp.body`, compare
 * each `v1,` signature in constant time. node:crypto here, where the service signs with Web Crypto.
 */
export async function receiverAccepts(secret: string, headers: Record<string, string>, body: string): Promise<boolean> {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`)
    .digest();
  return (headers['webhook-signature'] ?? '').split(' ').some((entry) => {
    const [version, mac] = entry.split(',');
    const given = Buffer.from(mac ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}
