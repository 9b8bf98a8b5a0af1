/**
 * The wire from the event loop to the writer Worker (capture/wire.ts): slices encoded as the
 * sink encodes them, posted with their buffer moved to a real Worker, decoded there as the
 * writer decodes them, and handed back. Every field must arrive as it was sent: every field
 * set, text in any script, empty strings, nulls, optional fields absent, and large slices.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { WorkerClient } from '../../../src/lib/worker-rpc';
import type { WireClick } from '../../../src/modules/clicks/capture/record';
import { encodeSlice } from '../../../src/modules/clicks/capture/wire';
import type { EchoHandlers } from './wire-echo-worker';

const worker = new WorkerClient<EchoHandlers>(
  new Worker(new URL('./wire-echo-worker.ts', import.meta.url).href),
  'wire echo',
);
afterAll(() => worker.close(new Error('done')));

/** Sends the clicks in slices of `size` as WorkerSink.add does, and reads back what the Worker decoded. */
async function throughWire(clicks: readonly WireClick[], size = 500): Promise<WireClick[]> {
  for (let i = 0; i < clicks.length; i += size) {
    const { slice, transfer } = encodeSlice(clicks.slice(i, i + size));
    worker.post('add', slice, transfer);
    // Moved, not copied: the event loop's copy of the buffer is gone.
    expect(slice.buffer.byteLength).toBe(0);
  }
  return worker.call('take');
}

/** Every field a click can carry, set (a field added to WireClick must be added here: Required). */
const full: Required<WireClick> = {
  time: 1_764_460_800_123,
  serial: 4_294_967_301,
  linkId: 'lnk_01JXYZ',
  variantId: 'var_42',
  code: 'spring-sale',
  location: 'https://example.com/landing?utm_source=news&x=%E2%82%AC',
  paramsJson: '{"utm_source":"news","utm_campaign":"été"}',
  address: '2001:db8::1',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/132.0',
  referrer: 'https://news.ycombinator.com/item?id=1',
  acceptLanguage: 'fr-CH, fr;q=0.9, en;q=0.8',
  bot: true,
  rule: 3,
  optedOut: true,
  linkValue: 2_147_483_647,
  targetId: 9_007_199_254_740_991,
};

/** The fields a click may leave out. */
const OPTIONAL = ['serial', 'rule', 'optedOut', 'linkValue', 'targetId'] as const;

function without(click: WireClick, keys: readonly (keyof WireClick)[]): WireClick {
  const copy = { ...click };
  for (const key of keys) delete copy[key];
  return copy;
}

describe('the click wire to the writer Worker', () => {
  test('every field set arrives as sent, and a click with only the required ones', async () => {
    const bare = without(full, OPTIONAL);
    const back = await throughWire([full, bare]);
    expect(back).toStrictEqual([full, bare]);
    expect(Object.keys(back[1]!).sort()).toEqual(Object.keys(bare).sort());
  });

  test('nulls, empty strings, falses and zeros stay what they were', async () => {
    const nulls: WireClick = {
      ...full,
      variantId: null,
      code: null,
      address: null,
      userAgent: null,
      referrer: null,
      acceptLanguage: null,
      rule: null,
      bot: false,
      optedOut: false,
    };
    const empty: WireClick = {
      ...full,
      linkId: '',
      variantId: '',
      code: '',
      location: '',
      paramsJson: '',
      address: '',
      userAgent: '',
      referrer: '',
      acceptLanguage: '',
      time: 0,
      serial: 0,
      rule: 0,
      linkValue: 0,
      targetId: 0,
    };
    const odd: WireClick = { ...full, time: -1.5, serial: -0, linkValue: Number.MAX_SAFE_INTEGER, targetId: 0.25 };
    const clicks = [nulls, empty, odd, ...OPTIONAL.map((key) => without(full, [key]))];
    expect(await throughWire(clicks)).toStrictEqual(clicks);
  });

  test('text in any script, and strings that differ only by a character, arrive exactly', async () => {
    const texts = [
      'https://例え.jp/パス?q=日本語',
      '🙂👍🏽 family: 👨‍👩‍👧',
      'Ünïcödé, combining: e\u0301',
      'a lone surrogate: \ud800 and \udfff',
      'nul \u0000 inside, tab\t, newline\n, quote " and backslash \\',
      'Ünïcödé, combining: e\u0300',
      'right-to-left: שלום مرحبا',
    ];
    const clicks = texts.map((text, i) => ({
      ...full,
      linkId: text,
      location: `${text}/${i}`,
      userAgent: text,
      referrer: texts[(i + 1) % texts.length]!,
      acceptLanguage: i % 2 === 0 ? text : null,
    }));
    expect(await throughWire(clicks)).toStrictEqual(clicks);
  });

  test('large slices and batches, with repeated and distinct strings, arrive in order', async () => {
    const agents = ['curl/8.5.0', 'Mozilla/5.0 (iPhone)', 'Googlebot/2.1', 'ünï 🙂'];
    const clicks: WireClick[] = Array.from({ length: 12_345 }, (_, i) => {
      const click: WireClick = {
        time: 1_764_460_800_000 + i * 37,
        linkId: `link-${i % 997}`,
        variantId: i % 5 === 0 ? `variant-${i % 3}` : null,
        code: i % 7 === 0 ? `code-${i}` : null,
        location: `https://example.com/${i % 997}`,
        paramsJson: i % 3 === 0 ? '{"utm_source":"news"}' : '{}',
        address: i % 11 === 0 ? null : `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
        userAgent: agents[i % agents.length]!,
        referrer: i % 2 === 0 ? null : 'https://t.co/',
        acceptLanguage: 'en-US,en;q=0.9',
        bot: i % 4 === 2,
      };
      if (i % 2 === 0) click.serial = i + 1;
      if (i % 3 !== 1) click.rule = i % 3 === 0 ? null : i % 6;
      if (i % 13 === 0) click.optedOut = true;
      if (i % 17 !== 0) click.linkValue = 100 + (i % 997);
      if (i % 19 === 0) click.targetId = 5000 + i;
      return click;
    });
    // The flusher's slices of 500, and one slice of the whole.
    expect(await throughWire(clicks)).toStrictEqual(clicks);
    expect(await throughWire(clicks, clicks.length)).toStrictEqual(clicks);
  });

  test('an empty slice adds nothing', async () => {
    const { slice, transfer } = encodeSlice([]);
    expect(slice.count).toBe(0);
    worker.post('add', slice, transfer);
    expect(await worker.call('take')).toStrictEqual([]);
  });
});
