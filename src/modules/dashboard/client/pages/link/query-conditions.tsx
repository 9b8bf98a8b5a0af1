/**
 * A rule's query condition: key/value rows, each key required in the visitor's query with that
 * value (case-insensitive) or, with "Any value", present at all.
 */
import { newQueryRow, type QueryRow } from '../../lib/rule-drafts';

export interface QueryConditionsProps {
  /** "Rule 2": the rows' names say which rule they belong to. */
  owner: string;
  rows: QueryRow[];
  onRows(rows: QueryRow[]): void;
  error: string | null;
}

export function QueryConditions({ owner, rows, onRows, error }: QueryConditionsProps) {
  const update = (id: number, change: Partial<QueryRow>) =>
    onRows(rows.map((row) => (row.id === id ? { ...row, ...change } : row)));
  return (
    <fieldset class="params" aria-invalid={error ? true : undefined}>
      <legend>Query</legend>
      {rows.length === 0 && <p class="hint">Any query. Add a key the visitor's query must hold.</p>}
      {rows.map((row, i) => (
        <div class="query-row" key={row.id}>
          <input
            aria-label={`${owner} query key ${i + 1}`}
            placeholder="key"
            spellcheck={false}
            value={row.key}
            onInput={(e) => update(row.id, { key: e.currentTarget.value })}
          />
          <input
            aria-label={`${owner} query value ${i + 1}`}
            placeholder={row.any ? 'any value' : 'value'}
            spellcheck={false}
            value={row.any ? '' : row.value}
            disabled={row.any}
            onInput={(e) => update(row.id, { value: e.currentTarget.value })}
          />
          <label class="any-value">
            <input
              type="checkbox"
              checked={row.any}
              onChange={(e) => update(row.id, { any: e.currentTarget.checked })}
            />
            Any value<span class="sr-only"> for query key {i + 1}</span>
          </label>
          <button
            type="button"
            class="icon-button"
            aria-label={`Remove query key ${row.key || i + 1} of ${owner}`}
            onClick={() => onRows(rows.filter((r) => r.id !== row.id))}
          >
            <span aria-hidden="true">×</span>
          </button>
        </div>
      ))}
      {error && <p class="field-error">{error}</p>}
      <button type="button" class="button small secondary" onClick={() => onRows([...rows, newQueryRow()])}>
        Add query key
      </button>
    </fieldset>
  );
}
