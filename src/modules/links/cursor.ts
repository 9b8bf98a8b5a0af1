/**
 * Opaque page cursors: base64url of the sort they belong to and the last key shown, so a
 * cursor from one sort cannot be replayed under another.
 */
import { invalid } from '../../lib/errors';
import type { LinkSort } from './model';
import type { PageKey } from './store';

export function encodeCursor(sort: LinkSort, key: PageKey): string {
  return Buffer.from(JSON.stringify([sort, key.value, key.id])).toString('base64url');
}

export function decodeCursor(sort: LinkSort, cursor: string): PageKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid('cursor', 'cursor is not a value returned by this endpoint');
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 3 ||
    typeof parsed[1] !== 'number' ||
    !Number.isSafeInteger(parsed[1]) ||
    typeof parsed[2] !== 'string'
  ) {
    throw invalid('cursor', 'cursor is not a value returned by this endpoint');
  }
  if (parsed[0] !== sort) throw invalid('cursor', `cursor belongs to sort=${String(parsed[0])}, not sort=${sort}`);
  return { value: parsed[1], id: parsed[2] };
}
