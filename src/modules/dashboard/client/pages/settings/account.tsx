/**
 * /app/settings/account: changing the password. The server ends every session of the account
 * when it changes, this one included, so the person signs in again with the new one.
 */
import { useState } from 'preact/hooks';
import { changePassword } from '../../api/app';
import { Field } from '../../components/field';
import { errorFor, FormError } from '../../components/form-error';
import { SettingsFrame } from '../../components/settings-frame';
import { useSubmit } from '../../lib/hooks';
import { navigate } from '../../router';
import { useSession } from '../../session';

type PasswordName = 'currentPassword' | 'newPassword' | 'repeat';

// The three fields differ only in these; their names are the API's error fields ('repeat' is ours).
const FIELDS: { name: PasswordName; label: string; autoComplete: string; hint?: string }[] = [
  { name: 'currentPassword', label: 'Current password', autoComplete: 'current-password' },
  { name: 'newPassword', label: 'New password', autoComplete: 'new-password', hint: 'At least 8 characters.' },
  { name: 'repeat', label: 'New password again', autoComplete: 'new-password' },
];

export function AccountPage() {
  const session = useSession();
  const [values, setValues] = useState<Record<PasswordName, string>>({
    currentPassword: '',
    newPassword: '',
    repeat: '',
  });
  const { busy, error, setError, submit } = useSubmit(async () => {
    await changePassword(values.currentPassword, values.newPassword);
    session.signedOut();
    navigate('/app/sign-in?notice=password-changed', { replace: true });
  });
  const check = (event: Event) => {
    if (values.newPassword === values.repeat) return submit(event);
    event.preventDefault();
    setError({ code: 'invalid_request', message: 'The two new passwords differ', field: 'repeat', status: 0 });
  };

  return (
    <SettingsFrame title="Password">
      <p>
        Signed in as <strong>{session.account?.email}</strong>. Changing the password signs this account out everywhere.
      </p>
      <form class="stack narrow" onSubmit={check}>
        <FormError error={error} fields={FIELDS.map((f) => f.name)} />
        {FIELDS.map((f) => (
          <Field
            key={f.name}
            label={f.label}
            type="password"
            autoComplete={f.autoComplete}
            required
            hint={f.hint}
            value={values[f.name]}
            onValue={(value) => setValues((before) => ({ ...before, [f.name]: value }))}
            error={errorFor(error, f.name)}
          />
        ))}
        <div class="actions start">
          <button type="submit" class="button primary" disabled={busy} aria-busy={busy}>
            Change password
          </button>
        </div>
      </form>
    </SettingsFrame>
  );
}
