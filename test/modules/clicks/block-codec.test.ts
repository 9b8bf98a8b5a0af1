import { describe, expect, test } from 'bun:test';
import { type ClickColumns, decodeBlock, emptyColumns, encodeBlock } from '../../../src/modules/clicks/block-codec';
import { visitorHex } from '../../../src/modules/clicks/sqlite/tail-append';
import { visitorBits } from '../../../src/modules/clicks/stored-click';
import { DIM_COLUMNS } from '../../../src/modules/rollups/dimensions';

/** Columns from rows: [id, time, target, dims (8), visitor hex (16), flags]. */
function columns(rows: [number, number, number, number[], string, number][]): ClickColumns {
  const c = emptyColumns(rows.length);
  rows.forEach(([id, time, target, dims, visitor, flags], i) => {
    c.id[i] = id;
    c.time[i] = time;
    c.target[i] = target;
    dims.forEach((v, d) => {
      c.dims[d]![i] = v;
    });
    const bits = visitorBits(visitor);
    c.visitorHi[i] = Number(bits >> 32n);
    c.visitorLo[i] = Number(bits & 0xffffffffn);
    c.flags[i] = flags;
  });
  return c;
}

const plain = (c: ClickColumns) => ({
  count: c.count,
  id: [...c.id],
  time: [...c.time],
  target: [...c.target],
  dims: c.dims.map((d) => [...d]),
  visitor: [...c.id].map((_, i) => visitorHex(c.visitorHi[i]!, c.visitorLo[i]!)),
  flags: [...c.flags],
});

const T = Date.UTC(2026, 10, 21, 12);
const dims = (n: number) => DIM_COLUMNS.map((_, d) => n + d);

describe('block codec', () => {
  test('round trip: every column comes back as it went in', () => {
    const c = columns([
      [7, T, 3, dims(1), '0123456789abcdef', 0],
      [8, T + 1, 3, dims(2), 'ffffffffffffffff', 1],
      [20, T + 1, 4, dims(300), '8000000000000000', 2],
      [21, T + 90_000, 1, dims(0), '0000000000000000', 3],
    ]);
    const data = encodeBlock(c);
    expect(plain(decodeBlock(data))).toEqual(plain(c));
    // Column-wise deltas: far below the tail row's ~60 bytes per click.
    expect(data.length / c.count).toBeLessThan(30);
  });

  test('empty', () => {
    const data = encodeBlock(emptyColumns(0));
    expect([...data]).toEqual([0]);
    expect(plain(decodeBlock(data))).toEqual(plain(emptyColumns(0)));
  });

  test('large ids, times and dictionary ids (beyond 32 bits, up to 2^53)', () => {
    const max = Number.MAX_SAFE_INTEGER;
    const c = columns([
      [2 ** 40, 2 ** 45, 2 ** 32 - 1, dims(2 ** 31), '7fffffffffffffff', 0],
      [max - 1, 2 ** 45 + 2 ** 33, 0, dims(2 ** 32 - 9), '8000000000000001', 3],
      [max, max, 1, dims(5), 'deadbeefcafef00d', 1],
    ]);
    expect(plain(decodeBlock(encodeBlock(c)))).toEqual(plain(c));
  });

  test('negative time deltas (a batch can hold an older click after a newer one) and equal times', () => {
    const c = columns([
      [1, T + 5_000, 1, dims(1), '0000000000000001', 0],
      [2, T, 1, dims(1), '0000000000000002', 0],
      [3, T, 1, dims(1), '0000000000000003', 0],
      [4, T - 86_400_000 * 400, 1, dims(1), '0000000000000004', 0],
      [5, T + 1, 1, dims(1), '0000000000000005', 0],
    ]);
    expect(plain(decodeBlock(encodeBlock(c)))).toEqual(plain(c));
  });

  test('a subset of rows (one link of a segment), in the order given', () => {
    const c = columns([
      [1, T, 1, dims(1), '0000000000000001', 0],
      [2, T + 1, 2, dims(2), '0000000000000002', 1],
      [3, T + 2, 3, dims(3), '0000000000000003', 2],
    ]);
    const odd = decodeBlock(encodeBlock(c, [0, 2]));
    expect(plain(odd)).toEqual(
      plain(
        columns([
          [1, T, 1, dims(1), '0000000000000001', 0],
          [3, T + 2, 3, dims(3), '0000000000000003', 2],
        ]),
      ),
    );
  });

  test('a truncated or padded block is an error, not wrong clicks', () => {
    const data = encodeBlock(columns([[1, T, 1, dims(1), '0000000000000001', 0]]));
    expect(() => decodeBlock(data.subarray(0, data.length - 1))).toThrow();
    expect(() => decodeBlock(new Uint8Array([...data, 0]))).toThrow();
  });
});

describe('stored visitor', () => {
  test('the first 16 hex characters of the hash (32 today, 16 after), as a signed 64-bit integer and back', () => {
    expect(visitorBits('ffffffffffffffff')).toBe(-1n);
    expect(visitorBits('7fffffffffffffff00000000000000ff')).toBe(2n ** 63n - 1n);
    expect(visitorBits('8000000000000000')).toBe(-(2n ** 63n));
    for (const hex of ['0123456789abcdef', 'fedcba9876543210', '0000000000000000', 'ffffffffffffffff']) {
      const bits = visitorBits(hex);
      expect(visitorHex(Number(bits >> 32n), Number(bits & 0xffffffffn))).toBe(hex);
    }
  });
});
