/** Key/value rows for tracking parameters (a link's or a variant's). */
import { newRow, type ParamRow } from '../lib/params';

export interface ParamsEditorProps {
  legend: string;
  rows: ParamRow[];
  onRows(rows: ParamRow[]): void;
  error?: string | null;
  /** Set when rows were added for the person (utm_ keys lifted from a pasted URL). */
  notice?: string | null;
  /** What no rows mean here. */
  emptyHint?: string;
}

export function ParamsEditor({
  legend,
  rows,
  onRows,
  error,
  notice,
  emptyHint = 'None. They are added to the destination on every click.',
}: ParamsEditorProps) {
  const update = (id: number, change: Partial<ParamRow>) =>
    onRows(rows.map((row) => (row.id === id ? { ...row, ...change } : row)));
  return (
    <fieldset class="params" aria-invalid={error ? true : undefined}>
      <legend>{legend}</legend>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {rows.length === 0 && <p class="hint">{emptyHint}</p>}
      {rows.map((row, i) => (
        <div class="param-row" key={row.id}>
          <input
            aria-label={`Parameter ${i + 1} name`}
            placeholder="name"
            value={row.key}
            onInput={(e) => update(row.id, { key: e.currentTarget.value })}
          />
          <input
            aria-label={`Parameter ${i + 1} value`}
            placeholder="value"
            value={row.value}
            onInput={(e) => update(row.id, { value: e.currentTarget.value })}
          />
          <button
            type="button"
            class="icon-button"
            aria-label={`Remove parameter ${row.key || i + 1}`}
            onClick={() => onRows(rows.filter((r) => r.id !== row.id))}
          >
            <span aria-hidden="true">×</span>
          </button>
        </div>
      ))}
      {error && <p class="field-error">{error}</p>}
      <button type="button" class="button small secondary" onClick={() => onRows([...rows, newRow()])}>
        Add parameter
      </button>
    </fieldset>
  );
}
