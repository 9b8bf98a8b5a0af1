/**
 * The dashboard: finds the page for the address, and decides what the visitor sees — public
 * pages (sign-in, setup) in the auth frame, every other page in the signed-in frame once the
 * session is known, and sign-in (then back here) when there is none.
 */
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { LoadFailed, Loading } from './components/feedback';
import { AuthLayout, Layout } from './components/layout';
import { NotFoundPage } from './pages/not-found';
import { navigate, useLocation } from './router';
import { findRoute } from './routes';
import { SessionContext, useSessionState } from './session';

function OnlySuperusers() {
  return (
    <>
      <h1>Superusers only</h1>
      <p>This page is for superuser accounts. Ask a superuser if you need a change here.</p>
    </>
  );
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
    const allowed = found?.route.access !== 'superuser' || session.state.account.superuser;
    content = (
      <Layout path={location.path}>
        {allowed ? <Page params={found?.params ?? {}} query={location.query} /> : <OnlySuperusers />}
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
