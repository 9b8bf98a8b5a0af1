/**
 * Bulk text as lines: one URL per line, a tab before an optional title. Only splitting here;
 * what a line becomes (valid, repeat, duplicate) is decided by the service.
 */
import { invalid } from '../../lib/errors';

export const MAX_BULK_LINES = 200;

interface TextLine {
  /** 1-based, counting blank lines, so it matches what the user sees in an editor. */
  line: number;
  /** The line without surrounding whitespace: what repeats are compared on. */
  input: string;
  url: string;
  /** The rest of the line after the first tab (further tabs become spaces), or null. */
  title: string | null;
}

/** The non-blank lines of the text; 400 on the field `text` when there are none or too many. */
export function splitBulkText(text: string): TextLine[] {
  const out: TextLine[] = [];
  const physical = text.split(/\r\n|\n|\r/);
  for (let i = 0; i < physical.length; i++) {
    const input = physical[i]!.trim();
    if (input === '') continue;
    if (out.length === MAX_BULK_LINES) {
      throw invalid('text', `text has more than ${MAX_BULK_LINES} URLs (one per line); send at most ${MAX_BULK_LINES}`);
    }
    const tab = input.indexOf('\t');
    const url = tab < 0 ? input : input.slice(0, tab).trim();
    const title =
      tab < 0
        ? null
        : input
            .slice(tab + 1)
            .replace(/\t/g, ' ')
            .trim() || null;
    out.push({ line: i + 1, input, url, title });
  }
  if (out.length === 0) throw invalid('text', 'text has no URL: put one URL per line');
  return out;
}
