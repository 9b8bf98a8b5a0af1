/** /app/sign-in: email and password; on success, back to the page that asked for sign-in. */
import { useEffect, useState } from 'preact/hooks';
import { signIn } from '../api/app';
import { type ApiError, toApiError } from '../api/client';
import { Field } from '../components/field';
import { errorFor, FormError } from '../components/form-error';
import { usePageTitle } from '../lib/hooks';
import { safeReturnPath } from '../lib/paths';
import { navigate } from '../router';
import { useSession } from '../session';
import type { PageProps } from './page';

// Fixed texts chosen by a query key: nothing from the address is ever shown as such.
const NOTICES: Record<string, string> = {
  'password-changed': 'Your password was changed. Sign in with the new one.',
  'signed-out-everywhere': 'You were signed out on every device.',
  'session-ended': 'Your session ended. Sign in again to continue.',
};

export function SignInPage({ query }: PageProps) {
  usePageTitle('Sign in');
  const session = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const next = safeReturnPath(query.get('next'));
  const notice = NOTICES[query.get('notice') ?? ''];

  // Someone already signed in (a bookmarked sign-in page) goes straight on.
  useEffect(() => {
    if (session.state.status === 'signed-in') navigate(next, { replace: true });
  }, [session.state.status, next]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      session.signedIn(await signIn(email, password));
      navigate(next, { replace: true });
    } catch (err) {
      setError(toApiError(err));
      setBusy(false);
    }
  };

  return (
    <>
      <h1>Sign in</h1>
      {notice && (
        <p class="alert notice" role="status">
          {notice}
        </p>
      )}
      <form class="stack" onSubmit={submit}>
        <FormError error={error} fields={['email', 'password']} />
        <Field
          label="Email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onValue={setEmail}
          error={errorFor(error, 'email')}
        />
        <Field
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onValue={setPassword}
          error={errorFor(error, 'password')}
        />
        <button type="submit" class="button primary wide" disabled={busy} aria-busy={busy}>
          Sign in
        </button>
      </form>
      <p class="hint">
        No account yet? An administrator creates one with <code>slink user add</code>.
      </p>
    </>
  );
}
