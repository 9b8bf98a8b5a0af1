/**
 * A webhook receiver for tests that drive a real server process: a Bun server on loopback (plain
 * or TLS) that keeps every request it gets and answers as the test says at that moment (a
 * status, or holding the request open until it is released), and the Standard Webhooks check
 * written again with Web Crypto (not the code under test), as a receiver following the
 * specification does it.
 */
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

/** What a receiver does: decode the key after `whsec_`, HMAC-SHA256 `id.timestamp.body`, compare. */
export async function receiverAccepts(secret: string, headers: Record<string, string>, body: string): Promise<boolean> {
  const key = await crypto.subtle.importKey(
    'raw',
    Uint8Array.from(atob(secret.split('_')[1]!), (c) => c.charCodeAt(0)),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  const signed = new TextEncoder().encode(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`);
  for (const entry of (headers['webhook-signature'] ?? '').split(' ')) {
    const [version, mac] = entry.split(',');
    if (version !== 'v1' || mac === undefined) continue;
    const bytes = Uint8Array.from(atob(mac), (c) => c.charCodeAt(0));
    if (await crypto.subtle.verify('HMAC', key, bytes, signed)) return true;
  }
  return false;
}
