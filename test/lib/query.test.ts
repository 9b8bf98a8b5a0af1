/** decodeQueryPart answers what decodeURIComponent would, without its exception, for any part. */
import { expect, test } from 'bun:test';
import { decodeQueryPart } from '../../src/lib/query';

function reference(raw: string): string {
  const text = raw.replaceAll('+', ' ');
  try {
    return decodeURIComponent(text);
  } catch {
    return raw;
  }
}

test('decodeQueryPart: the same text as decodeURIComponent, malformed parts kept as written', () => {
  const parts = [
    ...['a', 'a+b', '%41', '%4', '%', '%zz', 'x%C3%A9y', '%C3', '%C3%28', '%ED%A0%80', '%F0%9F%98%80', 'é%20x'],
    ...['%e2%82%ac%2', 'a%2Bb+c', '%C0%80', '%FF', '%25zz', 'a%20%20b', '%F4%90%80%80', '%E2%82'],
  ];
  for (const part of parts) expect({ part, text: decodeQueryPart(part) }).toEqual({ part, text: reference(part) });
  // Random parts of escapes, bare percents, pluses and characters: a seeded generator, no flakes.
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let i = 0; i < 20_000; i++) {
    let part = '';
    for (let j = next(6); j > 0; j--) {
      const r = next(10);
      part +=
        r < 5
          ? `%${next(256).toString(16).padStart(2, '0')}`
          : r < 6
            ? '%'
            : r < 7
              ? '+'
              : String.fromCharCode(32 + next(200));
    }
    if (decodeQueryPart(part) !== reference(part))
      expect({ part, text: decodeQueryPart(part) }).toEqual({ part, text: reference(part) });
  }
});
