/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): a delivery carries
 * `webhook-id`, `webhook-timestamp` (seconds) and `webhook-signature` = `v1,` + base64 of
 * HMAC-SHA256 over `id.timestamp.body`, keyed with the bytes of the secret after `whsec_`
 * (base64). Signing the id and the time with the body is what makes a captured delivery
 * useless later: a receiver refuses an old timestamp and an id it has seen.
 */
import { randomBytes } from 'node:crypto';
import { BoundedCache } from '../../lib/bounded-cache';

const PREFIX = 'whsec_';
/** 24 random bytes: 192 bits, within the 24-64 bytes the specification recommends. */
const SECRET_BYTES = 24;

/** A new webhook secret, `whsec_` + base64 of random bytes: shown once, kept to sign. */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The key bytes of a secret (what follows `whsec_`, base64-decoded). */
function keyOf(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new Error('a webhook secret starts with whsec_');
  return Buffer.from(secret.slice(PREFIX.length), 'base64');
}

// Imported once per secret (a workspace has at most 50 webhooks; the cache starts over if it fills).
const keys = new BoundedCache<string, Promise<CryptoKey>>(256);

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (key === undefined) {
    key = crypto.subtle.importKey('raw', new Uint8Array(keyOf(secret)), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
    ]);
    keys.set(secret, key);
  }
  return key;
}

/**
 * A delivery's headers and the bytes of its body. What is signed, `id.timestamp.body`, is
 * encoded once and the body sent is the end of it. Web Crypto rather than node:crypto: the
 * HMAC of a click batch's body (hundreds of KB, ~1 ms of SHA-256 each) runs off the event loop.
 * `timestamp` in seconds. Several secrets (a rotation's new and old) give one signature each,
 * space-separated, as the specification allows: a receiver accepts any one it can check.
 */
export async function signDelivery(
  secrets: string | readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Promise<{ headers: Record<string, string>; body: Uint8Array }> {
  const prefix = `${id}.${timestamp}.`;
  const content = Buffer.from(prefix + body);
  const macs = await Promise.all(
    (typeof secrets === 'string' ? [secrets] : secrets).map(async (secret) =>
      crypto.subtle.sign('HMAC', await hmacKey(secret), content as Uint8Array<ArrayBuffer>),
    ),
  );
  return {
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': macs.map((mac) => `v1,${Buffer.from(mac).toString('base64')}`).join(' '),
    },
    body: content.subarray(Buffer.byteLength(prefix)),
  };
}

/** The `webhook-signature` header of one delivery. `timestamp` in seconds. */
export async function webhookSignature(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  return (await signDelivery(secret, id, timestamp, body)).headers['webhook-signature']!;
}
