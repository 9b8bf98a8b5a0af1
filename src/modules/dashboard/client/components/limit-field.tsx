/**
 * A limit to some of a list (an account's or a key's projects, a key's domains): "All" by
 * default, or "Only these" with a checkbox per choice. The value is null for all, else the ids
 * chosen (an empty choice is left to the API to refuse, naming the field).
 */
import { useId } from 'preact/hooks';

export interface LimitFieldProps {
  legend: string;
  /** The text of the first choice: "All projects". */
  all: string;
  /** What choosing some means, in one line. */
  hint: string;
  options: { value: string; label: string }[];
  value: string[] | null;
  onValue(value: string[] | null): void;
  error?: string | null;
}

export function LimitField({ legend, all, hint, options, value, onValue, error }: LimitFieldProps) {
  const id = useId();
  const toggle = (choice: string, on: boolean) => {
    const now = value ?? [];
    onValue(on ? [...now, choice] : now.filter((v) => v !== choice));
  };
  return (
    <fieldset class="choices" aria-invalid={error ? true : undefined} aria-describedby={`${id}-hint`}>
      <legend>{legend}</legend>
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
      <label>
        <input type="radio" name={id} checked={value === null} onChange={() => onValue(null)} />
        {all}
      </label>
      <label>
        <input
          type="radio"
          name={id}
          checked={value !== null}
          disabled={options.length === 0}
          onChange={() => onValue([])}
        />
        Only these
      </label>
      {value !== null && (
        <div class="limit-choices">
          {options.map((o) => (
            <label key={o.value}>
              <input
                type="checkbox"
                checked={value.includes(o.value)}
                onChange={(e) => toggle(o.value, e.currentTarget.checked)}
              />
              {o.label}
            </label>
          ))}
        </div>
      )}
      {error && <p class="field-error">{error}</p>}
    </fieldset>
  );
}
