/** A superuser creates an account: email, first password, and whether it is a superuser too. */
import { useState } from 'preact/hooks';
import { createAccount } from '../../api/app';
import { CredentialsFields } from '../../components/credentials-fields';
import { Dialog } from '../../components/dialog';
import { CheckboxField } from '../../components/field';
import { FormActions } from '../../components/form-actions';
import { FormError } from '../../components/form-error';
import { useSubmit } from '../../lib/hooks';

function AccountForm({ onCreated, onClose }: { onCreated(): void; onClose(): void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [superuser, setSuperuser] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    await createAccount({ email: email.trim(), password, superuser });
    onCreated();
  });
  return (
    <form class="stack" onSubmit={submit}>
      <FormError error={error} fields={['email', 'password']} />
      <CredentialsFields
        purpose="new-other"
        passwordHint="At least 8 characters. Give it to the person; they can change it under Settings."
        email={email}
        onEmail={setEmail}
        password={password}
        onPassword={setPassword}
        error={error}
      />
      <CheckboxField
        label="Superuser"
        hint="Superusers choose slugs and manage accounts."
        checked={superuser}
        onChecked={setSuperuser}
      />
      <FormActions submit="Create account" busy={busy} onCancel={onClose} />
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
