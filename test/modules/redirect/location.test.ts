/**
 * applyParams: the redirect's Location. A key already in the destination query is replaced in
 * place (later repeats dropped), other query parts are kept byte for byte, new keys are appended
 * in params order, the fragment stays last, and nothing outside printable ASCII gets out.
 * Expected values are written out by hand, never computed with the encoder under test.
 */
import { describe, expect, test } from 'bun:test';
import { applyParams } from '../../../src/modules/redirect/location';

const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

describe('applyParams: nothing to apply', () => {
  test('empty params leave a destination without a query unchanged', () => {
    expect(applyParams('https://example.com/pricing', {})).toBe('https://example.com/pricing');
  });

  test('empty params keep an existing query and fragment byte for byte', () => {
    const destination = 'https://example.com/p?b=%2F&a=1&flag&x=y+z&empty=#frag';
    expect(applyParams(destination, {})).toBe(destination);
  });

  test('keys only named like Object.prototype members are not params', () => {
    expect(applyParams('https://example.com/?toString=1&constructor=2', {})).toBe(
      'https://example.com/?toString=1&constructor=2',
    );
    expect(applyParams('https://example.com/?toString=1', { constructor: 'x' })).toBe(
      'https://example.com/?toString=1&constructor=x',
    );
  });
});

describe('applyParams: appending', () => {
  test('no query: a query is started, keys in params order', () => {
    expect(applyParams('https://example.com/p', { z: '1', a: '2' })).toBe('https://example.com/p?z=1&a=2');
  });

  test('existing query: its parts stay raw and first, new keys follow', () => {
    expect(applyParams('https://example.com/p?b=%2F&a=1', { utm_source: 'nl', c: '' })).toBe(
      'https://example.com/p?b=%2F&a=1&utm_source=nl&c=',
    );
  });

  test('the fragment stays last, even when it looks like a query', () => {
    expect(applyParams('https://example.com/p#sec', { a: '1' })).toBe('https://example.com/p?a=1#sec');
    expect(applyParams('https://example.com/p?x=1#frag?a=0&b=2', { a: '9' })).toBe(
      'https://example.com/p?x=1&a=9#frag?a=0&b=2',
    );
  });

  test('empty query parts are dropped', () => {
    expect(applyParams('https://example.com/p?&a=1&&b=2&', { c: '3' })).toBe('https://example.com/p?a=1&b=2&c=3');
  });
});

describe('applyParams: replacing', () => {
  test('a key already in the query is replaced in place, later repeats dropped', () => {
    expect(applyParams('https://example.com/?k=1&a=x&k=2&b=y&k=3', { k: 'new', z: 'last' })).toBe(
      'https://example.com/?k=new&a=x&b=y&z=last',
    );
  });

  test('a bare key (no "=") and an empty value are replaced too', () => {
    expect(applyParams('https://example.com/?flag&x=1&empty=', { flag: 'on', empty: 'full' })).toBe(
      'https://example.com/?flag=on&x=1&empty=full',
    );
  });

  test('keys match case-sensitively', () => {
    expect(applyParams('https://example.com/?Plan=a&plan=b', { plan: 'c' })).toBe('https://example.com/?Plan=a&plan=c');
  });

  test('a "+" in a destination key is a space', () => {
    expect(applyParams('https://example.com/?utm+src=a&b=1', { 'utm src': 'z' })).toBe(
      'https://example.com/?utm%20src=z&b=1',
    );
  });

  test('a percent-encoded destination key matches its decoded param key', () => {
    expect(applyParams('https://example.com/?%75tm_source=old&x=1', { utm_source: 'new' })).toBe(
      'https://example.com/?utm_source=new&x=1',
    );
    expect(applyParams('https://example.com/?%E2%9C%93=1', { '✓': '2' })).toBe('https://example.com/?%E2%9C%93=2');
  });

  test('a malformed percent-encoding in the query is kept raw and does not throw', () => {
    expect(applyParams('https://example.com/?%zz=1&a=1', { a: '2' })).toBe('https://example.com/?%zz=1&a=2');
    expect(applyParams('https://example.com/?%E2%9C=1', {})).toBe('https://example.com/?%E2%9C=1');
  });

  test('the values in the destination query are not what is matched', () => {
    expect(applyParams('https://example.com/?x=a&y=a', { a: '1' })).toBe('https://example.com/?x=a&y=a&a=1');
  });
});

describe('applyParams: encoding', () => {
  test('keys and values are percent-encoded like encodeURIComponent', () => {
    const location = applyParams('https://example.com/', {
      'a b': 'c&d',
      'x=y': '1+1 = 2',
      q: 'a/b?c#d',
      ü: '€',
      '😀': '🎉',
    });
    expect(location).toBe(
      'https://example.com/?a%20b=c%26d&x%3Dy=1%2B1%20%3D%202&q=a%2Fb%3Fc%23d&%C3%BC=%E2%82%AC&%F0%9F%98%80=%F0%9F%8E%89',
    );
    expect(location).toMatch(PRINTABLE_ASCII);
  });

  test('unreserved characters are left alone', () => {
    expect(applyParams('https://example.com/', { k: "A-z_0.9!~*'()" })).toBe("https://example.com/?k=A-z_0.9!~*'()");
  });

  test('control characters, spaces and non-ASCII in the destination itself are percent-encoded', () => {
    expect(applyParams('https://example.com/a\tb c?x=\r\n', {})).toBe('https://example.com/a%09b%20c?x=%0D%0A');
    expect(applyParams('https://example.com/é?k=ü#ß', { k: 'v' })).toBe('https://example.com/%C3%A9?k=v#%C3%9F');
  });

  test('a character outside the BMP in the destination is encoded whole (not as two halves)', () => {
    const location = applyParams('https://example.com/😀?a=🎉', { b: '1' });
    expect(location).toBe('https://example.com/%F0%9F%98%80?a=%F0%9F%8E%89&b=1');
    expect(location).toMatch(PRINTABLE_ASCII);
  });
});
