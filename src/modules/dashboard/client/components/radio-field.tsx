/**
 * One choice of a few, all in view, as radio buttons in a fieldset (a key's scope, how parameters
 * are set, an import's source). A choice's `hint`, one line under it, is read with it.
 */
import { useId } from 'preact/hooks';

export interface RadioFieldProps<V extends string> {
  legend: string;
  name: string;
  value: V;
  onValue(value: V): void;
  options: { value: V; label: string; hint?: string }[];
  error?: string | null;
}

export function RadioField<V extends string>({ legend, name, value, onValue, options, error }: RadioFieldProps<V>) {
  const id = useId();
  return (
    <fieldset class="choices" aria-invalid={error ? true : undefined}>
      <legend>{legend}</legend>
      {options.map((o) => (
        <div key={o.value} class={o.hint ? 'choice' : undefined}>
          <label>
            <input
              type="radio"
              name={name}
              value={o.value}
              checked={value === o.value}
              onChange={() => onValue(o.value)}
              aria-describedby={o.hint ? `${id}-${o.value}` : undefined}
            />
            {o.label}
          </label>
          {o.hint && (
            <p class="hint" id={`${id}-${o.value}`}>
              {o.hint}
            </p>
          )}
        </div>
      ))}
      {error && <p class="field-error">{error}</p>}
    </fieldset>
  );
}
