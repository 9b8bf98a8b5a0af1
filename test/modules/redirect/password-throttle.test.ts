/**
 * The link password throttle on its own (redirect/password/throttle.ts): ten wrong answers per
 * link and address, then a refusal until the window ends; a right answer forgets them, a
 * cancelled one never counted; and with a shared store that cannot be reached, the node counts
 * alone instead of failing the visitor.
 */
import { expect, test } from 'bun:test';
import { fixedClock } from '../../../src/lib/clock';
import {
  LINK_PASSWORD_LIMIT,
  LINK_PASSWORD_WINDOW_MS,
  LinkPasswordThrottle,
  type PasswordAttempt,
} from '../../../src/modules/redirect/password/throttle';
import type { SignInFailureStore } from '../../../src/modules/sessions/store';

const T0 = Date.UTC(2026, 10, 21, 12);

async function started(throttle: LinkPasswordThrottle, link = 'lnk_1', address = '203.0.113.1') {
  const attempt = await throttle.start(link, address);
  if (typeof attempt === 'number') throw new Error(`refused for ${attempt} s`);
  return attempt as PasswordAttempt;
}

/** A database that cannot be reached: every statement fails. */
const unreachable: SignInFailureStore = {
  count: () => Promise.reject(new Error('connection refused')),
  takeBack: () => Promise.reject(new Error('connection refused')),
  forget: () => Promise.reject(new Error('connection refused')),
  prune: () => Promise.reject(new Error('connection refused')),
};

for (const [name, shared] of [
  ['in memory', null],
  ['counting alone while the shared database cannot be reached', unreachable],
] as const) {
  test(`${name}: ${LINK_PASSWORD_LIMIT} wrong answers, then refused until the window ends; per link and address`, async () => {
    const clock = fixedClock(T0);
    const throttle = new LinkPasswordThrottle(clock, shared);
    // A cancelled attempt (nothing verified) never counts; a right one forgets the wrong ones.
    for (let i = 0; i < 20; i++) await (await started(throttle)).cancelled();
    for (let i = 0; i < 5; i++) await started(throttle);
    await (await started(throttle)).succeeded();
    for (let i = 0; i < LINK_PASSWORD_LIMIT; i++) await started(throttle);
    expect(await throttle.start('lnk_1', '203.0.113.1')).toBe(LINK_PASSWORD_WINDOW_MS / 1000);
    expect(await throttle.start('lnk_2', '203.0.113.1')).not.toBeNumber();
    expect(await throttle.start('lnk_1', '203.0.113.2')).not.toBeNumber();
    clock.advance(LINK_PASSWORD_WINDOW_MS - 1000);
    expect(await throttle.start('lnk_1', '203.0.113.1')).toBe(1);
    clock.advance(1000);
    expect(await throttle.start('lnk_1', '203.0.113.1')).not.toBeNumber();
  });
}
