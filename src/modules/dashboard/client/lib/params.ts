/**
 * Tracking parameters as the editor holds them (rows, so a half-typed key can exist), and the
 * lifting of utm_ keys out of a pasted destination, by the same function the server runs.
 */
import { normalizeDestination } from '../../../links/destination';

export interface ParamRow {
  id: number;
  key: string;
  value: string;
}

let nextRowId = 1;
export const newRow = (key = '', value = ''): ParamRow => ({ id: nextRowId++, key, value });

export const rowsFromParams = (params: Record<string, string>): ParamRow[] =>
  Object.entries(params).map(([key, value]) => newRow(key, value));

/** Rows with an empty key are dropped; a repeated key keeps its last value (as the API would). */
export function paramsFromRows(rows: ParamRow[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (const row of rows) if (row.key.trim() !== '') params[row.key.trim()] = row.value;
  return params;
}

/** Rows with `add` set: existing keys get the new value, new keys are appended. */
export function withParams(rows: ParamRow[], add: Record<string, string>): ParamRow[] {
  const next = rows.filter((row) => row.key !== '' || row.value !== '');
  for (const [key, value] of Object.entries(add)) {
    const existing = next.find((row) => row.key === key);
    if (existing) existing.value = value;
    else next.push(newRow(key, value));
  }
  return next;
}

/**
 * The destination without its utm_ keys, and those keys, when the text is a valid destination
 * that has any; otherwise null (the text is left as the person typed it).
 */
export function liftUtm(text: string): { destination: string; utm: Record<string, string> } | null {
  try {
    const { destination, utm } = normalizeDestination(text);
    return Object.keys(utm).length > 0 ? { destination, utm } : null;
  } catch {
    return null;
  }
}
