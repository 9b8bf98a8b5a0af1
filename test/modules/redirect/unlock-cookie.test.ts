/**
 * The unlock cookie on its own (redirect/password/unlock-cookie.ts): what Set-Cookie says, what
 * the value holds (never the password or its hash), and which cookies are refused: another
 * link's, an expired one, one signed with another key (a changed password), a forged or altered
 * one, one claiming a life longer than any this release sets.
 */
import { expect, test } from 'bun:test';
import { carriesUnlock, UNLOCK_SECONDS, unlockCookie } from '../../../src/modules/redirect/password/unlock-cookie';

const NOW = Date.UTC(2026, 10, 21, 12);
const KEY = 'a'.repeat(64);
const HASH = '$argon2id$v=19$m=65536,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';

/** The `name=value` part of a Set-Cookie, as a browser sends it back. */
const sent = (setCookie: string) => setCookie.split(';')[0]!;

test('Set-Cookie: scoped to the link path, HttpOnly, SameSite=Lax, an hour, Secure on https only', () => {
  const cookie = unlockCookie('promo', 'lnk_1', KEY, NOW, true);
  expect(cookie).toMatch(
    /^slink_unlock=lnk_1\.[0-9a-z]+\.[0-9a-f]{64}; Max-Age=3600; Path=\/promo; HttpOnly; SameSite=Lax; Secure$/,
  );
  expect(UNLOCK_SECONDS).toBe(3600);
  expect(unlockCookie('promo', 'lnk_1', KEY, NOW, false)).not.toContain('Secure');
  expect(cookie).not.toContain(HASH);
  expect(cookie).not.toContain('argon2');
});

test('accepted for its link until it expires, refused after', () => {
  const header = sent(unlockCookie('promo', 'lnk_1', KEY, NOW, true));
  expect(carriesUnlock(header, 'lnk_1', KEY, NOW)).toBe(true);
  expect(carriesUnlock(header, 'lnk_1', KEY, NOW + UNLOCK_SECONDS * 1000 - 1)).toBe(true);
  expect(carriesUnlock(header, 'lnk_1', KEY, NOW + UNLOCK_SECONDS * 1000)).toBe(false);
  expect(carriesUnlock(`theme=dark; ${header}; other=1`, 'lnk_1', KEY, NOW)).toBe(true);
  expect(carriesUnlock(null, 'lnk_1', KEY, NOW)).toBe(false);
});

test('refused for another link, another key (the password changed), or when altered', () => {
  const header = sent(unlockCookie('promo', 'lnk_1', KEY, NOW, true));
  expect(carriesUnlock(header, 'lnk_2', KEY, NOW)).toBe(false);
  expect(carriesUnlock(header, 'lnk_1', 'b'.repeat(64), NOW)).toBe(false);
  const [id, expiry, mac] = header.slice('slink_unlock='.length).split('.') as [string, string, string];
  const later = (Number.parseInt(expiry, 36) + 60_000).toString(36);
  const altered = [
    `slink_unlock=${id}.${later}.${mac}`,
    `slink_unlock=lnk_2.${expiry}.${mac}`,
    `slink_unlock=${id}.${expiry}.${mac.replace(/^./, (c) => (c === '0' ? '1' : '0'))}`,
    `slink_unlock=${id}.${expiry}.${mac}.x`,
    `slink_unlock=${id}.${expiry}`,
    'slink_unlock=',
  ];
  for (const cookie of altered)
    expect({ cookie, ok: carriesUnlock(cookie, 'lnk_1', KEY, NOW) }).toEqual({ cookie, ok: false });
  // A life far beyond what this release sets is refused, even with a valid MAC.
  const future = sent(unlockCookie('promo', 'lnk_1', KEY, NOW + 86_400_000, true));
  expect(carriesUnlock(future, 'lnk_1', KEY, NOW)).toBe(false);
  // One good cookie among bad ones of the same name is enough.
  expect(carriesUnlock(`${altered[0]}; ${header}`, 'lnk_1', KEY, NOW)).toBe(true);
});
