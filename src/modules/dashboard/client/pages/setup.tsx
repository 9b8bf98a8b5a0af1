/**
 * /app/setup?token=…: the first run. While no account exists the server logs this address;
 * it creates the first superuser, signs them in, and then stops working.
 */
import { useState } from 'preact/hooks';
import { completeSetup, getSetup } from '../api/app';
import { type ApiError, toApiError } from '../api/client';
import { Loading } from '../components/feedback';
import { Field } from '../components/field';
import { errorFor, FormError } from '../components/form-error';
import { usePageTitle, useResource } from '../lib/hooks';
import { navigate } from '../router';
import { useSession } from '../session';
import type { PageProps } from './page';

function AlreadySetUp() {
  return (
    <>
      <h1>Slink is set up</h1>
      <p>An account exists already, so this setup address no longer works.</p>
      <p>
        <a class="button primary" href="/app/sign-in">
          Go to sign-in
        </a>
      </p>
    </>
  );
}

export function SetupPage({ query }: PageProps) {
  usePageTitle('Set up Slink');
  const session = useSession();
  const token = query.get('token') ?? '';
  const setup = useResource(getSetup, []);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  if (setup.loading) return <Loading active />;
  if (setup.data?.needed === false || error?.code === 'setup_done') return <AlreadySetUp />;
  if (token === '') {
    return (
      <>
        <h1>Set up Slink</h1>
        <p>
          Open the setup address the server printed in its log when it started: it ends in{' '}
          <code>/app/setup?token=…</code>.
        </p>
      </>
    );
  }

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      session.signedIn(await completeSetup(token, email, password));
      navigate('/app', { replace: true });
    } catch (err) {
      setError(toApiError(err));
      setBusy(false);
    }
  };

  return (
    <>
      <h1>Set up Slink</h1>
      <p>Create the first account. It is a superuser: it can create the other accounts.</p>
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
          autoComplete="new-password"
          required
          hint="At least 8 characters."
          value={password}
          onValue={setPassword}
          error={errorFor(error, 'password')}
        />
        <button type="submit" class="button primary wide" disabled={busy} aria-busy={busy}>
          Create account
        </button>
      </form>
    </>
  );
}
