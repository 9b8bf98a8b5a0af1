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

export function AccountPage() {
  const session = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const { busy, error, setError, submit } = useSubmit(async () => {
    await changePassword(current, next);
    session.signedOut();
    navigate('/app/sign-in?notice=password-changed', { replace: true });
  });
  const check = (event: Event) => {
    if (next === repeat) return submit(event);
    event.preventDefault();
    setError({ code: 'invalid_request', message: 'The two new passwords differ', field: 'repeat', status: 0 });
  };

  return (
    <SettingsFrame title="Password">
      <p>
        Signed in as <strong>{session.account?.email}</strong>. Changing the password signs this account out everywhere.
      </p>
      <form class="stack narrow" onSubmit={check}>
        <FormError error={error} fields={['currentPassword', 'newPassword', 'repeat']} />
        <Field
          label="Current password"
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onValue={setCurrent}
          error={errorFor(error, 'currentPassword')}
        />
        <Field
          label="New password"
          type="password"
          autoComplete="new-password"
          required
          hint="At least 8 characters."
          value={next}
          onValue={setNext}
          error={errorFor(error, 'newPassword')}
        />
        <Field
          label="New password again"
          type="password"
          autoComplete="new-password"
          required
          value={repeat}
          onValue={setRepeat}
          error={errorFor(error, 'repeat')}
        />
        <div class="actions start">
          <button type="submit" class="button primary" disabled={busy} aria-busy={busy}>
            Change password
          </button>
        </div>
      </form>
    </SettingsFrame>
  );
}
