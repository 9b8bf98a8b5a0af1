/**
 * Creating an API key: name, scope and expiry; then its secret, shown this once with a copy
 * button. The secret lives only in this dialog's state and is gone when the dialog closes.
 */
import { useState } from 'preact/hooks';
import { createKey } from '../../api/app';
import type { KeyItem, KeyScope } from '../../api/types';
import { CopyButton } from '../../components/copy-button';
import { Dialog } from '../../components/dialog';
import { Field, SelectField } from '../../components/field';
import { FormActions } from '../../components/form-actions';
import { errorFor, FormError } from '../../components/form-error';
import { RadioField } from '../../components/radio-field';
import { useSubmit } from '../../lib/hooks';

const DAY = 86_400_000;
const SCOPE_OPTIONS: { value: KeyScope; label: string }[] = [
  { value: 'read', label: 'Read: reads links and statistics' },
  { value: 'write', label: 'Write: also creates, changes and deletes' },
  { value: 'create', label: 'Create only: creates links, nothing else (for an extension or a form)' },
];
const EXPIRY_OPTIONS = [
  { value: '', label: 'Never' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In a year' },
];

function KeyForm({ onCreated, onClose }: { onCreated(item: KeyItem): void; onClose(): void }) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<KeyScope>('read');
  const [days, setDays] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    const expiresAt = days ? Date.now() + Number(days) * DAY : null;
    const created = await createKey({ name: name.trim() || undefined, scope, expiresAt });
    onCreated(created.item);
    setSecret(created.key);
  });

  if (secret !== null) {
    return (
      <div class="stack">
        <p class="alert notice">This is the only time the key is shown. Copy it now and keep it somewhere safe.</p>
        <Field label="Your new API key" value={secret} onValue={() => {}} readOnly spellcheck={false} />
        <div class="actions">
          <CopyButton text={secret} what="API key" />
          <button type="button" class="button primary" onClick={onClose}>
            Done
          </button>
        </div>
      </div>
    );
  }

  return (
    <form class="stack" onSubmit={submit}>
      <FormError error={error} fields={['name', 'scope', 'expiresAt']} />
      <Field
        label="Name"
        hint="Optional: what uses it."
        value={name}
        onValue={setName}
        error={errorFor(error, 'name')}
      />
      <RadioField<KeyScope>
        legend="Scope"
        name="scope"
        value={scope}
        onValue={setScope}
        options={SCOPE_OPTIONS}
        error={errorFor(error, 'scope')}
      />
      <SelectField
        label="Expires"
        value={days}
        onValue={setDays}
        options={EXPIRY_OPTIONS}
        error={errorFor(error, 'expiresAt')}
      />
      <FormActions submit="Create" busy={busy} onCancel={onClose} />
    </form>
  );
}

export function KeyDialog(props: { open: boolean; onCreated(item: KeyItem): void; onClose(): void }) {
  return (
    <Dialog open={props.open} title="New API key" onClose={props.onClose}>
      <KeyForm onCreated={props.onCreated} onClose={props.onClose} />
    </Dialog>
  );
}
