/** /api/app session routes: first-run setup, sign-in and sign-out, the account's sessions, its password. */
import { Elysia } from 'elysia';
import { appAccess, findSignedIn, signedIn } from '../../http/app-guard';
import { clientAddress } from '../../http/client';
import { appDetail, errors, IdParams, noContentResponses } from '../../http/models';
import { clearedSessionCookie, sessionCookie } from '../../http/session';
import type { SessionsDeps } from './deps';
import { PasswordBody, SessionListModel, SetupBody, SetupStatusModel, SignedInModel, SignInBody } from './model';
import { changePassword } from './password';
import { endAllSessions, endSession, listSessions, type NewSession, signIn, signOut } from './service';
import { completeSetup, setupNeeded } from './setup';
import { signedInBody as toBody } from './signed-in-body';

type Headers = Record<string, string | number>;

export function sessionRoutes(deps: SessionsDeps) {
  const { appHost, trustProxy } = deps.config;
  const opened = (headers: Headers, created: NewSession) => {
    headers['set-cookie'] = sessionCookie(appHost, created.token, created.session.expiresAt, deps.clock.now());
    return toBody(created);
  };
  const ended = (set: { status?: unknown; headers: Headers }) => {
    set.headers['set-cookie'] = clearedSessionCookie(appHost);
    set.status = 204;
  };
  const userAgent = (request: Request) => request.headers.get('user-agent');

  return new Elysia({ name: 'slink.app.sessions' })
    .get('/setup', async () => ({ needed: await setupNeeded(deps) }), {
      response: { 200: SetupStatusModel },
      detail: appDetail('Whether first-run setup is needed', 'True while no account exists.', { door: true }),
    })
    .post(
      '/setup',
      async ({ body, request, set }) => {
        const created = await completeSetup(deps, { ...body, userAgent: userAgent(request) });
        set.status = 201;
        return opened(set.headers, created);
      },
      {
        parse: 'json',
        body: SetupBody,
        response: { 201: SignedInModel, ...errors(400, 403, 409, 413, 415) },
        detail: appDetail(
          'Create the first superuser',
          'With the token of the setup address the server logs while no account exists; signs in (Set-Cookie). 409 setup_done once an account exists.',
          { door: true },
        ),
      },
    )
    .post(
      '/session',
      async ({ body, request, server, set }) => {
        const created = await signIn(deps, {
          ...body,
          userAgent: userAgent(request),
          address: clientAddress(request, server, trustProxy),
        });
        // A browser that was signed in gets a fresh session; the old one ends.
        const previous = findSignedIn(request);
        if (previous) await signOut(deps, previous.session.id);
        return opened(set.headers, created);
      },
      {
        parse: 'json',
        body: SignInBody,
        response: { 200: SignedInModel, ...errors(400, 401, 403, 413, 415, 429, 503) },
        detail: appDetail(
          'Sign in',
          'Sets the session cookie. A wrong email, a wrong password and a disabled account all answer 401 sign_in_failed. Throttled per email and per client address (429 with Retry-After). A password that could not be checked in time (the server busy or stopping) answers 503 verification_unavailable with Retry-After.',
          { door: true },
        ),
      },
    )
    .get('/session', ({ request }) => toBody(signedIn(request)), {
      response: { 200: SignedInModel, ...errors(403) },
      detail: appDetail('The signed-in account', 'Without a live session: 403 session_required.'),
    })
    .delete(
      '/session',
      async ({ request, set }) => {
        await signOut(deps, signedIn(request).session.id);
        ended(set);
      },
      { detail: { ...appDetail('Sign out'), responses: noContentResponses('Signed out; cookie cleared', 403) } },
    )
    .get(
      '/sessions',
      async ({ request }) => {
        const { account, session } = signedIn(request);
        return { items: await listSessions(deps, account.id, session.id) };
      },
      {
        response: { 200: SessionListModel, ...errors(403) },
        detail: appDetail("The account's live sessions", 'Newest first; `current` marks this one.'),
      },
    )
    .delete(
      '/sessions',
      async ({ request, set }) => {
        await endAllSessions(deps, signedIn(request).account.id);
        ended(set);
      },
      {
        detail: {
          ...appDetail('Sign out everywhere', 'Ends every session of the account, this one included.'),
          responses: noContentResponses('Every session ended; cookie cleared', 403),
        },
      },
    )
    .delete(
      '/sessions/:id',
      async ({ params, request, set }) => {
        const { account, session } = signedIn(request);
        await endSession(deps, account.id, params.id);
        if (params.id === session.id) set.headers['set-cookie'] = clearedSessionCookie(appHost);
        set.status = 204;
      },
      {
        params: IdParams,
        detail: {
          ...appDetail('End one of your sessions', "Another account's session is 404."),
          responses: noContentResponses('Session ended', 403, 404),
        },
      },
    )
    .post(
      '/password',
      async ({ body, request, server, set }) => {
        const { account } = signedIn(request);
        await changePassword(
          deps,
          account,
          { ...body, address: clientAddress(request, server, trustProxy) },
          appAccess(request),
        );
        ended(set);
      },
      {
        parse: 'json',
        body: PasswordBody,
        detail: {
          ...appDetail(
            'Change your password',
            'Ends every session of the account (sign in again). A wrong current password is 400 field currentPassword.',
          ),
          responses: noContentResponses('Password changed; every session ended, cookie cleared', 400, 403, 429, 503),
        },
      },
    );
}
