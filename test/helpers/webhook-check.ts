/**
 * The Standard Webhooks check as a receiver writes it, independently of the code under test
 * (node:crypto here; signature.test.ts checks the same with Web Crypto).
 */
import { createHmac } from 'node:crypto';

/** A delivery as a test's receiver saw it: its headers and its body as sent. */
export interface ReceivedDelivery {
  headers: Record<string, string>;
  raw: string;
}

export function signedBy(secret: string, r: ReceivedDelivery): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const mac = createHmac('sha256', key)
    .update(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.raw}`)
    .digest('base64');
  return r.headers['webhook-signature'] === `v1,${mac}`;
}
