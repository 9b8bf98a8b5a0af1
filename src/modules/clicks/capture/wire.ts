/**
 * How a slice of clicks crosses from the event loop to the writer Worker (sink.ts): columns in
 * one transferable ArrayBuffer (moved, not copied) and the slice's strings joined into one text,
 * instead of JSON text of an object a click. The event loop writes each click's numbers, flags
 * and string indexes into typed arrays, and a string many clicks share (agents, referrers,
 * languages, params) once a slice; a link id, location or address once per run of clicks that
 * repeat it. The Worker takes each string out of the text once (a substring, not a parse) and
 * builds the clicks from the columns. Every field arrives as it was sent: a null as null, an
 * optional field absent as absent (test/modules/clicks/wire.test.ts). Measured:
 * docs/decisions/2026-11-30-click-wire-typed-arrays.md.
 *
 * The buffer, for n clicks and s strings in the text:
 *   f64 numbers[n * 5] (time, serial, rule, linkValue, targetId; 0 where absent or null),
 *   i32 strings[n * 9] (an index into the text's strings, -1 for null), u8 flags[n], padding
 *   to 4, i32 ends[s] (where each string ends in the text).
 */
import type { WireClick } from './record';

/** A slice of clicks as it crosses (postMessage: the buffer transferred, the text copied). */
export interface WireSlice {
  count: number;
  /** How many distinct strings the text holds. */
  strings: number;
  buffer: ArrayBuffer;
  text: string;
}

const NUMBERS = 5;
const STRINGS = 9;
const NULL = -1;

const BOT = 1;
const OPTED_OUT_SET = 2;
const OPTED_OUT = 4;
const SERIAL = 8;
const RULE_SET = 16;
const RULE_NULL = 32;
const LINK_VALUE = 64;
const TARGET_ID = 128;

function layout(n: number): { strings: number; flags: number; ends: number; end: (s: number) => number } {
  const strings = n * NUMBERS * 8;
  const flags = strings + n * STRINGS * 4;
  const ends = (flags + n + 3) & ~3;
  return { strings, flags, ends, end: (s) => ends + s * 4 };
}

/** A slice encoded for the Worker; `transfer` is what postMessage moves rather than copies. */
export function encodeSlice(slice: readonly WireClick[]): { slice: WireSlice; transfer: ArrayBuffer[] } {
  const n = slice.length;
  const at = layout(n);
  // Room for every string distinct; the buffer is moved, so its unused tail is never copied.
  const buffer = new ArrayBuffer(at.end(n * STRINGS));
  const numbers = new Float64Array(buffer, 0, n * NUMBERS);
  const refs = new Int32Array(buffer, at.strings, n * STRINGS);
  const flags = new Uint8Array(buffer, at.flags, n);
  const ends = new Int32Array(buffer, at.ends, n * STRINGS);
  const index = new Map<string, number>();
  const parts: string[] = [];
  let length = 0;
  const add = (s: string): number => {
    const i = parts.length;
    parts.push(s);
    length += s.length;
    ends[i] = length;
    return i;
  };
  // Text a few values share (agents, referrers, languages, params): each distinct one once.
  const ref = (s: string | null): number => {
    if (s === null || s === undefined) return NULL;
    let i = index.get(s);
    if (i === undefined) {
      i = add(s);
      index.set(s, i);
    }
    return i;
  };
  // Text nearly every click has its own under uniform traffic (link ids, locations, addresses):
  // a map would cost more than the few repeats save; only a repeat of the click before is shared.
  const last = [NULL, NULL, NULL];
  const own = (s: string | null, field: number): number => {
    if (s === null || s === undefined) return NULL;
    const before = last[field]!;
    if (before !== NULL && parts[before] === s) return before;
    const i = add(s);
    last[field] = i;
    return i;
  };
  for (let k = 0; k < n; k++) {
    const c = slice[k]!;
    const f = k * NUMBERS;
    numbers[f] = c.time;
    let bits = c.bot ? BOT : 0;
    if (c.serial !== undefined) {
      bits |= SERIAL;
      numbers[f + 1] = c.serial;
    }
    if (c.rule !== undefined) {
      bits |= RULE_SET;
      if (c.rule === null) bits |= RULE_NULL;
      else numbers[f + 2] = c.rule;
    }
    if (c.linkValue !== undefined) {
      bits |= LINK_VALUE;
      numbers[f + 3] = c.linkValue;
    }
    if (c.targetId !== undefined) {
      bits |= TARGET_ID;
      numbers[f + 4] = c.targetId;
    }
    if (c.optedOut !== undefined) bits |= OPTED_OUT_SET | (c.optedOut ? OPTED_OUT : 0);
    flags[k] = bits;
    const r = k * STRINGS;
    refs[r] = own(c.linkId, 0);
    refs[r + 1] = ref(c.variantId);
    refs[r + 2] = ref(c.code);
    refs[r + 3] = own(c.location, 1);
    refs[r + 4] = ref(c.paramsJson);
    refs[r + 5] = own(c.address, 2);
    refs[r + 6] = ref(c.userAgent);
    refs[r + 7] = ref(c.referrer);
    refs[r + 8] = ref(c.acceptLanguage);
  }
  return { slice: { count: n, strings: parts.length, buffer, text: parts.join('') }, transfer: [buffer] };
}

/** Appends the clicks of a slice to `into`, each as it was encoded. */
export function decodeSlice(wire: WireSlice, into: WireClick[]): void {
  const n = wire.count;
  const at = layout(n);
  const numbers = new Float64Array(wire.buffer, 0, n * NUMBERS);
  const refs = new Int32Array(wire.buffer, at.strings, n * STRINGS);
  const flags = new Uint8Array(wire.buffer, at.flags, n);
  const ends = new Int32Array(wire.buffer, at.ends, wire.strings);
  const text = wire.text;
  const strings: string[] = new Array(wire.strings);
  for (let s = 0, from = 0; s < wire.strings; s++) {
    const to = ends[s]!;
    strings[s] = text.slice(from, to);
    from = to;
  }
  const str = (i: number): string | null => (i === NULL ? null : strings[i]!);
  for (let k = 0; k < n; k++) {
    const f = k * NUMBERS;
    const r = k * STRINGS;
    const bits = flags[k]!;
    const click: WireClick = {
      time: numbers[f]!,
      linkId: strings[refs[r]!]!,
      variantId: str(refs[r + 1]!),
      code: str(refs[r + 2]!),
      location: strings[refs[r + 3]!]!,
      paramsJson: strings[refs[r + 4]!]!,
      address: str(refs[r + 5]!),
      userAgent: str(refs[r + 6]!),
      referrer: str(refs[r + 7]!),
      acceptLanguage: str(refs[r + 8]!),
      bot: (bits & BOT) !== 0,
    };
    if ((bits & SERIAL) !== 0) click.serial = numbers[f + 1]!;
    if ((bits & RULE_SET) !== 0) click.rule = (bits & RULE_NULL) !== 0 ? null : numbers[f + 2]!;
    if ((bits & OPTED_OUT_SET) !== 0) click.optedOut = (bits & OPTED_OUT) !== 0;
    if ((bits & LINK_VALUE) !== 0) click.linkValue = numbers[f + 3]!;
    if ((bits & TARGET_ID) !== 0) click.targetId = numbers[f + 4]!;
    into.push(click);
  }
}
