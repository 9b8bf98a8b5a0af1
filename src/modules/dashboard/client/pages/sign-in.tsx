/** /app/sign-in: email and password; on success, back to the page that asked for sign-in. */
import { useEffect } from 'preact/hooks';
import { signIn } from '../api/app';
import { CredentialsForm } from '../components/credentials-fields';
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
  const next = safeReturnPath(query.get('next'));
  const notice = NOTICES[query.get('notice') ?? ''];

  // Someone already signed in (a bookmarked sign-in page) goes straight on.
  useEffect(() => {
    if (session.state.status === 'signed-in') navigate(next, { replace: true });
  }, [session.state.status, next]);

  const send = async (email: string, password: string) => {
    session.signedIn(await signIn(email, password));
    navigate(next, { replace: true });
  };

  return (
    <>
      <h1>Sign in</h1>
      {notice && (
        <p class="alert notice" role="status">
          {notice}
        </p>
      )}
      <CredentialsForm purpose="sign-in" submit="Sign in" send={send} />
      <p class="hint">
        No account yet? An administrator creates one with <code>slink user add</code>.
      </p>
    </>
  );
}
