/**
 * clicksFor: a `clicks` event's data as each reader gets it, bot hits spliced in as text after
 * the human clicks, one link's picked out for a stream of that link, nothing when none is left.
 */
import { describe, expect, test } from 'bun:test';
import { clicksFor } from '../../../src/modules/webhooks/outbox/click-events';

const human = (id: number, linkId: string) => ({ id, linkId, bot: false });
const bot = (id: number, linkId: string) => ({ id, linkId, bot: true });
const event = (humans: object[], bots: object[]) => ({
  data: JSON.stringify({ clicks: humans }),
  botData: bots.length === 0 ? null : JSON.stringify(bots),
});
const read = (data: string | null) => (data === null ? null : JSON.parse(data).clicks.map((c: any) => c.id));

describe('clicksFor', () => {
  const mixed = event([human(1, 'a'), human(3, 'b')], [bot(2, 'a'), bot(4, 'b')]);

  test('without bots: the human clicks, the stored text itself', () => {
    expect(clicksFor(mixed, { bots: false, linkId: null })).toBe(mixed.data);
  });

  test('with bots: the human clicks, then the bot hits, as valid JSON', () => {
    expect(read(clicksFor(mixed, { bots: true, linkId: null }))).toEqual([1, 3, 2, 4]);
    expect(read(clicksFor(event([], [bot(7, 'a')]), { bots: true, linkId: null }))).toEqual([7]);
    expect(read(clicksFor(event([human(5, 'a')], []), { bots: true, linkId: null }))).toEqual([5]);
  });

  test("one link's clicks for a stream of that link; nothing left is null", () => {
    expect(read(clicksFor(mixed, { bots: false, linkId: 'a' }))).toEqual([1]);
    expect(read(clicksFor(mixed, { bots: true, linkId: 'b' }))).toEqual([3, 4]);
    expect(clicksFor(mixed, { bots: false, linkId: 'c' })).toBeNull();
    expect(clicksFor(event([], [bot(7, 'a')]), { bots: false, linkId: null })).toBeNull();
  });
});
