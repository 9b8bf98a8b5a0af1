/**
 * The unlock cookie: after the right password, a browser goes through a protected link without
 * the form for UNLOCK_SECONDS (docs/behaviour.md, "Password-protected links").
 *
 * Its value is `<link id>.<expiry, ms in base 36>.<HMAC-SHA256 of both, hex>`: never the password
 * nor its hash. The HMAC's key is derived from the link's password hash and the database's secret
 * (unlock-keys.ts), so changing or removing the password ends every cookie of the link, and any
 * node of a shared database accepts another's. It is scoped to the link's path (`Path=/<slug>`,
 * which covers `/<slug>/<code>` and no other link), HttpOnly, SameSite=Lax, Secure on https.
 */
import { digestsEqual, hmacHex } from '../../../lib/hash';

/** The cookie's name (one per path: a browser sends only the one of the link it asks for). */
export const UNLOCK_COOKIE = 'slink_unlock';
const NAME = UNLOCK_COOKIE;

/** One hour: long enough for a visit that comes back, short enough that a shared device forgets. */
export const UNLOCK_SECONDS = 3600;
const UNLOCK_MS = UNLOCK_SECONDS * 1000;
// A node whose clock is a little behind the one that set the cookie still accepts it.
const SKEW_MS = 5 * 60_000;

const HEX_MAC = /^[0-9a-f]{64}$/;
const EXPIRY = /^[0-9a-z]{1,12}$/;

/** Set-Cookie for a browser that gave `linkId`'s right password at `now`, on the path `/<slug>` it used. */
export function unlockCookie(slug: string, linkId: string, key: string, now: number, secure: boolean): string {
  const expiry = (now + UNLOCK_MS).toString(36);
  const value = `${linkId}.${expiry}.${hmacHex(key, `${linkId}.${expiry}`)}`;
  return `${NAME}=${value}; Max-Age=${UNLOCK_SECONDS}; Path=/${slug}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/**
 * Whether `cookieHeader` carries an unexpired unlock cookie of `linkId` signed with `key`. Every
 * cookie of the name is tried (a browser may hold several), each MAC compared in constant time.
 */
export function carriesUnlock(cookieHeader: string | null, linkId: string, key: string, now: number): boolean {
  if (cookieHeader === null) return false;
  const prefix = `${NAME}=`;
  for (const part of cookieHeader.split(';')) {
    const pair = part.trim();
    if (!pair.startsWith(prefix)) continue;
    const [id, expiry, mac, extra] = pair.slice(prefix.length).split('.');
    if (extra !== undefined || id !== linkId || !expiry || !EXPIRY.test(expiry) || !mac || !HEX_MAC.test(mac)) continue;
    const expiresAt = Number.parseInt(expiry, 36);
    // Expired, or further ahead than any cookie this release sets: refused.
    if (!(now < expiresAt && expiresAt <= now + UNLOCK_MS + SKEW_MS)) continue;
    if (digestsEqual(mac, hmacHex(key, `${linkId}.${expiry}`))) return true;
  }
  return false;
}

/** Whether Set-Cookie may carry Secure: the short host is served over https. */
export function isSecureHost(shortHost: string): boolean {
  return shortHost.startsWith('https:');
}
