/** How list subcommands print: aligned columns for people, ISO times (UTC, seconds) or "-". */
import type { CliIo } from './io';

export const iso = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));

/** `rows[0]` is the header; columns are padded to their widest cell, two spaces apart. */
export function printTable(io: CliIo, rows: string[][]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const row of rows)
    io.out(
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
}
