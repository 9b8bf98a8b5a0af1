/** RFC 4180 output (CRLF, quoting) with a guard against spreadsheet formulas (docs/behaviour.md, "CSV export"). */

// A cell a spreadsheet could run as a formula starts with one of these.
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell: text is guarded then quoted when needed; numbers and booleans as they are; null empty. */
export function csvCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(cells: readonly (string | number | boolean | null)[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) line += (i === 0 ? '' : ',') + csvCell(cells[i]!);
  return `${line}\r\n`;
}
