/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): a delivery carries
 * `webhook-id`, `webhook-timestamp` (seconds) and `webhook-signature` = `v1,` + base64 of
 * HMAC-SHA256 over `id.timestamp.body`, keyed with the bytes of the secret after `whsec_`
 * (base64). Signing the id and the time with the body is what makes a captured delivery
 * useless later: a receiver refuses an old timestamp and an id it has seen.
 */
import { createHmac, randomBytes } from 'node:crypto';

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

/**
 * The `webhook-signature` header of one delivery. `timestamp` in seconds; the body as sent (its
 * bytes, when the caller has them: a click batch's body is hundreds of KB, encoded once).
 */
export function webhookSignature(secret: string, id: string, timestamp: number, body: string | Uint8Array): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/** The three headers of a delivery, with its content type. */
export function deliveryHeaders(
  secret: string,
  id: string,
  timestamp: number,
  body: string | Uint8Array,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': webhookSignature(secret, id, timestamp, body),
  };
}
