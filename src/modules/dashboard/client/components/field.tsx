/**
 * Labelled form controls. Each shows its own error (the API's message for the field it names)
 * right under it, tied to the control with aria-describedby and aria-invalid.
 */
import type { ComponentChildren, Ref } from 'preact';
import { useId } from 'preact/hooks';

interface Common {
  label: string;
  error?: string | null;
  hint?: ComponentChildren;
}

function Messages({ id, hint, error }: { id: string; hint?: ComponentChildren; error?: string | null }) {
  return (
    <>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </>
  );
}

/** What an edit inserted: its inputType, and the text it inserted at once (when the browser says). */
export interface InputHow {
  inputType: string;
  data: string | null;
}

const describedBy = (id: string, hint: unknown, error: unknown) =>
  [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;

export interface FieldProps extends Common {
  value: string;
  /** Every edit; `how` says what kind (a typed character, a paste, a whole value filled in). */
  onValue(value: string, how: InputHow): void;
  type?: 'text' | 'email' | 'password' | 'url' | 'number' | 'datetime-local' | 'date' | 'search';
  name?: string;
  required?: boolean;
  autoComplete?: string;
  inputMode?: 'text' | 'url' | 'numeric' | 'email' | 'search';
  placeholder?: string;
  min?: number;
  max?: number;
  readOnly?: boolean;
  spellcheck?: boolean;
  inputRef?: Ref<HTMLInputElement>;
  onBlur?(): void;
  /** The id of a datalist of suggested values. */
  list?: string;
}

export function Field(props: FieldProps) {
  const id = useId();
  const { label, error, hint } = props;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        ref={props.inputRef}
        name={props.name}
        // Preact types each input type apart (for role checks); any of ours takes these attributes.
        type={(props.type ?? 'text') as 'text'}
        value={props.value}
        required={props.required}
        autoComplete={props.autoComplete}
        inputMode={props.inputMode}
        placeholder={props.placeholder}
        min={props.min}
        max={props.max}
        readOnly={props.readOnly}
        spellcheck={props.spellcheck}
        list={props.list}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        onInput={(e) => {
          // Autofill can send a plain Event: no inputType, no data.
          const { inputType = '', data = null } = e as unknown as Partial<InputEvent>;
          props.onValue(e.currentTarget.value, { inputType, data });
        }}
        onBlur={props.onBlur}
      />
      <Messages id={id} hint={hint} error={error} />
    </div>
  );
}

export interface TextAreaFieldProps extends Common {
  value: string;
  onValue(value: string): void;
  rows?: number;
  required?: boolean;
  placeholder?: string;
  /** Prose (a description): wrapped and spell-checked. */
  wrap?: boolean;
}

/**
 * Many lines of text. A bulk paste is not wrapped, so each line on screen is one line sent;
 * prose (`wrap`) is.
 */
export function TextAreaField({
  label,
  value,
  onValue,
  rows = 8,
  required,
  placeholder,
  error,
  hint,
  wrap = false,
}: TextAreaFieldProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea
        id={id}
        rows={rows}
        wrap={wrap ? 'soft' : 'off'}
        spellcheck={wrap}
        required={required}
        placeholder={placeholder}
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        onInput={(e) => onValue(e.currentTarget.value)}
      />
      <Messages id={id} hint={hint} error={error} />
    </div>
  );
}

export interface SelectFieldProps extends Common {
  value: string;
  onValue(value: string): void;
  /** The text of a first choice with the value '' ("Any tag", "No project"), when there is one. */
  blank?: string;
  options: { value: string; label: string }[];
}

export function SelectField({ label, value, onValue, blank, options, error, hint }: SelectFieldProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select
        id={id}
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        onChange={(e) => onValue(e.currentTarget.value)}
      >
        {blank !== undefined && <option value="">{blank}</option>}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <Messages id={id} hint={hint} error={error} />
    </div>
  );
}

export function CheckboxField({
  label,
  checked,
  onChecked,
  hint,
}: Common & { checked: boolean; onChecked(v: boolean): void }) {
  const id = useId();
  return (
    <div class="field checkbox">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        onChange={(e) => onChecked(e.currentTarget.checked)}
        aria-describedby={describedBy(id, hint, null)}
      />
      <label for={id}>{label}</label>
      <Messages id={id} hint={hint} />
    </div>
  );
}

/** A file to upload (one). The browser keeps the choice; `onFile` hears it, null when cleared. */
export function FileField({
  label,
  accept,
  onFile,
  error,
  hint,
}: Common & { accept?: string; onFile(file: File | null): void }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="file"
        accept={accept}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        onChange={(e) => onFile(e.currentTarget.files?.[0] ?? null)}
      />
      <Messages id={id} hint={hint} error={error} />
    </div>
  );
}
