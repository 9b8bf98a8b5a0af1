/** A superuser creates an account: email, first password, and whether it is a superuser too. */
import { useState } from 'preact/hooks';
import { createAccount } from '../../api/app';
import { type ApiError, toApiError } from '../../api/client';
import { Dialog } from '../../components/dialog';
import { CheckboxField, Field } from '../../components/field';
import { errorFor, FormError } from '../../components/form-error';

function AccountForm({ onCreated, onClose }: { onCreated(): void; onClose(): void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [superuser, setSuperuser] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await createAccount({ email: email.trim(), password, superuser });
      onCreated();
    } catch (err) {
      setError(toApiError(err));
      setBusy(false);
    }
  };
  return (
    <form class="stack" onSubmit={submit}>
      <FormError error={error} fields={['email', 'password']} />
      <Field
        label="Email"
        type="email"
        autoComplete="off"
        required
        value={email}
        onValue={setEmail}
        error={errorFor(error, 'email')}
      />
      <Field
        label="Password"
        type="password"
        autoComplete="new-password"
        required
        hint="At least 8 characters. Give it to the person; they can change it under Settings."
        value={password}
        onValue={setPassword}
        error={errorFor(error, 'password')}
      />
      <CheckboxField
        label="Superuser"
        hint="Superusers choose slugs and manage accounts."
        checked={superuser}
        onChecked={setSuperuser}
      />
      <div class="actions">
        <button type="button" class="button secondary" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" class="button primary" disabled={busy} aria-busy={busy}>
          Create account
        </button>
      </div>
    </form>
  );
}

export function AccountDialog(props: { open: boolean; onCreated(): void; onClose(): void }) {
  return (
    <Dialog open={props.open} title="New account" onClose={props.onClose}>
      <AccountForm onCreated={props.onCreated} onClose={props.onClose} />
    </Dialog>
  );
}
