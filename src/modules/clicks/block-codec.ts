/**
 * The packed form of a sealed block: one link's clicks of one segment, column by column. Ids
 * rise, so they are stored as deltas; times mostly rise (a batch can hold a slightly older
 * click), so they are zigzag deltas; dictionary and target ids are plain varints (small
 * integers); the visitor is 8 bytes; flags one byte. Columns compress far better than rows:
 * a click costs ~20-30 bytes here against ~60 as a tail row.
 *
 * Layout: varint count, then the columns in CLICK_COLUMNS order. Numbers up to 2^53 (ids,
 * epoch ms) are written with arithmetic, not 32-bit bit operations.
 */
import { grown } from '../../lib/typed-arrays';
import { DIM_COUNT } from '../rollups/public';

/** Clicks column by column, in id order (what a block holds and what the tail reader returns). */
export interface ClickColumns {
  count: number;
  id: Float64Array;
  time: Float64Array;
  target: Uint32Array;
  /** One array per dimension, in CLICK_DIMS order (rollups/dimensions.ts). */
  dims: Uint32Array[];
  /** The visitor's 64 bits: high half signed, low half unsigned (as SQLite's `>> 32` and `& 0xffffffff` give them). */
  visitorHi: Int32Array;
  visitorLo: Uint32Array;
  /** 1 = bot, 2 = first visit of the day. */
  flags: Uint8Array;
}

export function emptyColumns(count: number): ClickColumns {
  return {
    count,
    id: new Float64Array(count),
    time: new Float64Array(count),
    target: new Uint32Array(count),
    dims: Array.from({ length: DIM_COUNT }, () => new Uint32Array(count)),
    visitorHi: new Int32Array(count),
    visitorLo: new Uint32Array(count),
    flags: new Uint8Array(count),
  };
}

class Writer {
  buf: Uint8Array<ArrayBuffer>;
  pos = 0;
  constructor(size: number) {
    this.buf = new Uint8Array(size);
  }

  private room(n: number): void {
    this.buf = grown(this.buf, this.pos + n);
  }

  /** A non-negative integer up to 2^53. */
  varint(v: number): void {
    this.room(8);
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.pos++] = v;
  }

  /** Any safe integer: zigzag, so small negative numbers stay short. */
  signed(v: number): void {
    this.varint(v < 0 ? -2 * v - 1 : 2 * v);
  }

  u32(v: number): void {
    this.room(4);
    const b = this.buf;
    b[this.pos++] = v >>> 24;
    b[this.pos++] = v >>> 16;
    b[this.pos++] = v >>> 8;
    b[this.pos++] = v;
  }

  byte(v: number): void {
    this.room(1);
    this.buf[this.pos++] = v;
  }
}

class Reader {
  pos = 0;
  constructor(private readonly buf: Uint8Array) {}

  varint(): number {
    const b = this.buf;
    if (this.pos >= b.length) throw new Error('click block: truncated');
    let byte = b[this.pos++]!;
    if (byte < 0x80) return byte;
    let v = byte & 0x7f;
    let scale = 0x80;
    do {
      if (this.pos >= b.length) throw new Error('click block: truncated');
      byte = b[this.pos++]!;
      v += (byte & 0x7f) * scale;
      scale *= 0x80;
    } while (byte >= 0x80);
    return v;
  }

  signed(): number {
    const z = this.varint();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  u32(): number {
    const b = this.buf;
    const p = this.pos;
    this.pos += 4;
    return ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;
  }

  byte(): number {
    return this.buf[this.pos++]!;
  }
}

/** Packs rows `rows` (indexes into `c`, in id order) of `c`; all of them when omitted. */
export function encodeBlock(c: ClickColumns, rows?: ArrayLike<number>): Uint8Array {
  const n = rows ? rows.length : c.count;
  const at = (i: number) => (rows ? rows[i]! : i);
  const w = new Writer(16 + n * 28);
  w.varint(n);
  let prev = 0;
  for (let i = 0; i < n; i++) {
    const id = c.id[at(i)]!;
    w.varint(i === 0 ? id : id - prev);
    prev = id;
  }
  prev = 0;
  for (let i = 0; i < n; i++) {
    const t = c.time[at(i)]!;
    w.signed(t - prev);
    prev = t;
  }
  for (let i = 0; i < n; i++) w.varint(c.target[at(i)]!);
  for (const col of c.dims) for (let i = 0; i < n; i++) w.varint(col[at(i)]!);
  for (let i = 0; i < n; i++) {
    w.u32(c.visitorHi[at(i)]! >>> 0);
    w.u32(c.visitorLo[at(i)]!);
  }
  for (let i = 0; i < n; i++) w.byte(c.flags[at(i)]!);
  return w.buf.slice(0, w.pos);
}

export function decodeBlock(data: Uint8Array): ClickColumns {
  const r = new Reader(data);
  const n = r.varint();
  const c = emptyColumns(n);
  let prev = 0;
  for (let i = 0; i < n; i++) {
    prev = i === 0 ? r.varint() : prev + r.varint();
    c.id[i] = prev;
  }
  prev = 0;
  for (let i = 0; i < n; i++) {
    prev += r.signed();
    c.time[i] = prev;
  }
  for (let i = 0; i < n; i++) c.target[i] = r.varint();
  for (const col of c.dims) for (let i = 0; i < n; i++) col[i] = r.varint();
  for (let i = 0; i < n; i++) {
    c.visitorHi[i] = r.u32() | 0;
    c.visitorLo[i] = r.u32();
  }
  for (let i = 0; i < n; i++) c.flags[i] = r.byte();
  if (r.pos !== data.length) throw new Error('click block: trailing bytes');
  return c;
}
