/**
 * Lines of a bulk paste as the server reads them: line number, what happens to it, the
 * destination, title and params it becomes, and why it is skipped. Everything is shown as text.
 */
import type { BulkLine, BulkStatus } from '../../api/types';
import { linkPagePath } from '../../lib/paths';

const STATUS_TEXT: Record<BulkStatus, string> = {
  create: 'Create',
  repeat: 'Repeat',
  duplicate: 'Duplicate',
  invalid: 'Invalid',
};

/** "2 to create, 1 repeat, 1 invalid": only the statuses that occur. */
export function countsText(counts: Partial<Record<BulkStatus | 'created', number>>): string {
  const parts: string[] = [];
  const add = (n: number | undefined, text: string) => n && parts.push(`${n} ${text}`);
  add(counts.created, counts.created === 1 ? 'link created' : 'links created');
  add(counts.create, 'to create');
  add(counts.repeat, counts.repeat === 1 ? 'repeat' : 'repeats');
  add(counts.duplicate, counts.duplicate === 1 ? 'duplicate' : 'duplicates');
  add(counts.invalid, 'invalid');
  return parts.join(', ');
}

function Why({ line }: { line: BulkLine }) {
  // The server's message names the existing link by id: a link to its page says more.
  if (line.duplicateOfLink) {
    return (
      <p class="hint">
        A link to this destination exists already: <a href={linkPagePath(line.duplicateOfLink)}>open it</a>.
      </p>
    );
  }
  return line.message ? <p class="hint">{line.message}</p> : null;
}

export function BulkLines({ lines, label }: { lines: BulkLine[]; label: string }) {
  return (
    <ol class="bulk-lines" aria-label={label}>
      {lines.map((line) => {
        const params = Object.entries(line.params ?? {});
        return (
          <li key={line.line} class={`bulk-line ${line.status}`}>
            <p class="bulk-line-head">
              <span class="hint">Line {line.line}</span>
              <span class={`badge ${line.status}`}>{STATUS_TEXT[line.status]}</span>
            </p>
            <p class="bulk-line-url">{line.destination ?? line.input}</p>
            {line.title && <p>{line.title}</p>}
            {params.length > 0 && (
              <ul class="tags" aria-label="Parameters">
                {params.map(([key, value]) => (
                  <li key={key}>
                    {key}={value}
                  </li>
                ))}
              </ul>
            )}
            <Why line={line} />
          </li>
        );
      })}
    </ol>
  );
}
