/**
 * /app/setup?token=…: the first run. While no account exists the server logs this address;
 * it creates the first superuser, signs them in, and then stops working.
 */
import { useState } from 'preact/hooks';
import { completeSetup, getSetup } from '../api/app';
import { toApiError } from '../api/client';
import { CredentialsForm } from '../components/credentials-fields';
import { Loading } from '../components/feedback';
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
  const [done, setDone] = useState(false);

  if (setup.loading) return <Loading active />;
  if (setup.data?.needed === false || done) return <AlreadySetUp />;
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

  const send = async (email: string, password: string) => {
    try {
      session.signedIn(await completeSetup(token, email, password));
      navigate('/app', { replace: true });
    } catch (err) {
      // Someone finished the setup meanwhile: say so instead of showing an error.
      if (toApiError(err).code === 'setup_done') setDone(true);
      else throw err;
    }
  };

  return (
    <>
      <h1>Set up Slink</h1>
      <p>Create the first account. It is a superuser: it can create the other accounts.</p>
      <CredentialsForm purpose="new-own" submit="Create account" passwordHint="At least 8 characters." send={send} />
    </>
  );
}
