/** One choice of a few, all in view, as radio buttons in a fieldset (a key's scope, how parameters are set). */
export interface RadioFieldProps<V extends string> {
  legend: string;
  name: string;
  value: V;
  onValue(value: V): void;
  options: { value: V; label: string }[];
  error?: string | null;
}

export function RadioField<V extends string>({ legend, name, value, onValue, options, error }: RadioFieldProps<V>) {
  return (
    <fieldset class="choices" aria-invalid={error ? true : undefined}>
      <legend>{legend}</legend>
      {options.map((o) => (
        <label key={o.value}>
          <input
            type="radio"
            name={name}
            value={o.value}
            checked={value === o.value}
            onChange={() => onValue(o.value)}
          />
          {o.label}
        </label>
      ))}
      {error && <p class="field-error">{error}</p>}
    </fieldset>
  );
}
