/** Random identifiers and secrets from a cryptographic source; never sequential, never guessable. */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * `length` characters of [A-Za-z0-9], uniform: bytes >= 248 are rejected so that
 * 248 = 4 * 62 keeps every character equally likely.
 * @example randomString(7) // "q3ZxT0b"
 */
export function randomString(length: number): string {
  let out = '';
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const b of bytes) {
      if (b >= 248) continue;
      out += ALPHABET[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

type IdKind = 'acc' | 'imp' | 'inv' | 'key' | 'lnk' | 'var' | 'prj' | 'ses' | 'whk' | 'evt';

/** Resource ids: a readable kind prefix and 16 random characters (~95 bits). */
export function newId(kind: IdKind): string {
  return `${kind}_${randomString(16)}`;
}

/** A bearer secret: 32 random bytes (256 bits), base64url, 43 characters. */
export function randomToken(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
}
