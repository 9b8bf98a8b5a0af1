/** "Are you sure?" for changes that cannot be undone: Cancel has the focus first. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog } from './dialog';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  /** The confirming button's text, saying what it does ("Revoke key"). */
  confirm: string;
  onConfirm(): Promise<void> | void;
  onCancel(): void;
  children?: ComponentChildren;
}

function ConfirmBody({ confirm, onConfirm, onCancel, children }: Omit<ConfirmDialogProps, 'open' | 'title'>) {
  const [busy, setBusy] = useState(false);
  const go = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="stack">
      {children}
      <div class="actions">
        {/* biome-ignore lint/a11y/noAutofocus: the safe choice takes the focus when the dialog opens. */}
        <button type="button" class="button secondary" autoFocus onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class="button danger" disabled={busy} aria-busy={busy} onClick={go}>
          {confirm}
        </button>
      </div>
    </div>
  );
}

export function ConfirmDialog({ open, title, onCancel, ...rest }: ConfirmDialogProps) {
  return (
    <Dialog open={open} title={title} onClose={onCancel}>
      <ConfirmBody onCancel={onCancel} {...rest} />
    </Dialog>
  );
}
