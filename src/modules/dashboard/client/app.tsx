/**
 * The dashboard: finds the page for the address, and decides what the visitor sees — public
 * pages (sign-in, setup) in the auth frame, every other page in the signed-in frame once the
 * session is known, and sign-in (then back here) when there is none.
 */
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { LoadFailed, Loading } from './components/feedback';
import { AuthLayout, Layout } from './components/layout';
import { usePageTitle } from './lib/hooks';
import { type Powers, powersOf } from './lib/powers';
import { NotFoundPage } from './pages/not-found';
import { navigate, useLocation } from './router';
import { type Access, findRoute } from './routes';
import { SessionContext, useSessionState } from './session';

/** A page the signed-in person may not use, said plainly instead of an error. */
function NotForYou({ only, role }: { only: string; role: string }) {
  usePageTitle(only);
  return (
    <>
      <h1>{only}</h1>
      <p>
        Your account is {role === 'viewer' ? 'a' : 'an'} {role}. Ask an admin if you need a change here.
      </p>
      <p>
        <a href="/app">Back to the links</a>
      </p>
    </>
  );
}

function mayOpen(access: Access | undefined, powers: Powers): boolean {
  if (access === 'admin') return powers.admin;
  if (access === 'changes') return powers.change;
  return true;
}

export function App() {
  const location = useLocation();
  const session = useSessionState();
  const found = findRoute(location.path);
  const isPublic = found?.route.access === 'public';
  const status = session.state.status;

  const ended = session.state.status === 'signed-out' && session.state.ended === true;
  useEffect(() => {
    if (status === 'signed-out' && !isPublic) {
      const here = location.path + (location.query.size ? `?${location.query}` : '');
      const notice = ended ? '&notice=session-ended' : '';
      navigate(`/app/sign-in?next=${encodeURIComponent(here)}${notice}`, { replace: true });
    }
  }, [status, ended, isPublic, location.path, location.query]);

  let content: ComponentChildren;
  if (isPublic && found) {
    content = (
      <AuthLayout>
        <found.route.page params={found.params} query={location.query} />
      </AuthLayout>
    );
  } else if (session.state.status === 'signed-in') {
    const Page = found?.route.page ?? NotFoundPage;
    const { account } = session.state;
    const allowed = mayOpen(found?.route.access, powersOf(account));
    content = (
      <Layout path={location.path}>
        {allowed ? (
          <Page params={found?.params ?? {}} query={location.query} />
        ) : (
          <NotForYou only={found?.route.only ?? 'Only admins can use this page'} role={account.role} />
        )}
      </Layout>
    );
  } else if (session.state.status === 'error') {
    content = (
      <AuthLayout>
        <h1>Slink is not answering</h1>
        <LoadFailed error={session.state.error} retry={session.retry} />
      </AuthLayout>
    );
  } else {
    content = <Loading active />;
  }
  return <SessionContext.Provider value={session}>{content}</SessionContext.Provider>;
}
