/** A form's buttons: Cancel (when it can be left) and the one that sends it, busy while it does. */
export interface FormActionsProps {
  /** The sending button's text, saying what it does ("Create", "Add variant"). */
  submit: string;
  busy: boolean;
  onCancel?(): void;
  danger?: boolean;
  disabled?: boolean;
}

export function FormActions({ submit, busy, onCancel, danger, disabled }: FormActionsProps) {
  return (
    <div class="actions">
      {onCancel && (
        <button type="button" class="button secondary" onClick={onCancel}>
          Cancel
        </button>
      )}
      <button
        type="submit"
        class={`button ${danger ? 'danger' : 'primary'}`}
        disabled={busy || disabled}
        aria-busy={busy}
      >
        {submit}
      </button>
    </div>
  );
}
