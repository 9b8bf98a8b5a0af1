/**
 * CSV records read from a byte stream one at a time, so a file larger than memory is never held
 * whole: RFC 4180 quoting (a quoted field may hold the separator, quotes doubled, line breaks),
 * CRLF or LF line ends, a UTF-8 byte-order mark dropped. The separator is the header line's:
 * a comma, or the semicolon or tab a spreadsheet writes in some locales, on a header line of at
 * most 64 KiB.
 */

import { SourceError } from '../source';

/** The longest header line read (a header names a few columns). */
const MAX_HEADER_CHARS = 64 * 1024;

export async function* csvRecords(stream: ReadableStream<Uint8Array>): AsyncGenerator<string[]> {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: false });
  let separator: string | null = null;
  let pending = '';
  let field = '';
  let record: string[] = [];
  let quoted = false;
  /** The field began with a quote (so its text is what the quotes hold). */
  let wasQuoted = false;

  function* take(text: string, end: boolean): Generator<string[]> {
    let i = 0;
    for (; i < text.length; i++) {
      const c = text[i]!;
      if (quoted) {
        if (c === '"') {
          if (i + 1 >= text.length && !end) break; // a doubled quote may span chunks: wait for more
          if (text[i + 1] === '"') {
            field += '"';
            i++;
          } else quoted = false;
        } else field += c;
        continue;
      }
      if (c === '"' && field === '' && !wasQuoted) {
        quoted = true;
        wasQuoted = true;
      } else if (c === separator) {
        record.push(field);
        field = '';
        wasQuoted = false;
      } else if (c === '\n' || c === '\r') {
        if (c === '\r' && i + 1 >= text.length && !end) break; // a CRLF may span chunks
        if (c === '\r' && text[i + 1] === '\n') i++;
        record.push(field);
        field = '';
        wasQuoted = false;
        const done = record;
        record = [];
        if (!(done.length === 1 && done[0] === '')) yield done; // blank lines are nothing
      } else field += c;
    }
    pending = text.slice(i);
  }

  const reader = stream.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      const text = pending + (done ? decoder.decode() : decoder.decode(value, { stream: true }));
      if (separator === null) {
        const line = firstLine(text);
        if (line === null && !done) {
          // Looked for again in each chunk from its start: a line with no end would cost the
          // square of its length (a 60 MiB one held the event loop for 30 s), so it is bounded.
          if (text.length > MAX_HEADER_CHARS)
            throw new SourceError(
              'the first line of the CSV runs on past 64 KiB: it must be a header row naming its columns',
              false,
              'file',
            );
          pending = text;
          continue;
        }
        separator = separatorOf(line ?? text);
      }
      yield* take(text, done);
      if (done) break;
    }
    if (field !== '' || record.length > 0 || wasQuoted) {
      record.push(field);
      yield record;
    }
  } finally {
    reader.releaseLock();
  }
}

/** The header line, once a line end outside quotes has arrived; null before. */
function firstLine(text: string): string | null {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) return text.slice(0, i);
  }
  return null;
}

function separatorOf(header: string): string {
  const count = (sep: string) => header.split(sep).length - 1;
  const candidates: [string, number][] = [
    [',', count(',')],
    [';', count(';')],
    ['\t', count('\t')],
  ];
  candidates.sort((a, b) => b[1] - a[1]);
  return candidates[0]![1] > 0 ? candidates[0]![0] : ',';
}
