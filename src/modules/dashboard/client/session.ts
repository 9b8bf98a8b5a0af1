/**
 * Who is signed in. The app asks GET /api/app/session once at start; a 403 session_required
 * from any later call (the session ended elsewhere, expired, or the password changed) turns the
 * state to signed-out, and the app sends the person to sign-in.
 */
import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useState } from 'preact/hooks';
import { signOut as endSession, getSession } from './api/app';
import { type ApiError, toApiError, whenSessionEnds } from './api/client';
import type { Account, SignedIn } from './api/types';

export type SessionState =
  | { status: 'loading' }
  | { status: 'signed-out'; ended?: boolean }
  | { status: 'signed-in'; account: Account }
  | { status: 'error'; error: ApiError };

export interface Session {
  state: SessionState;
  account: Account | null;
  signedIn(answer: SignedIn): void;
  /** Forget the session locally (the server already ended it: password change, sign out everywhere). */
  signedOut(): void;
  signOut(): Promise<void>;
  retry(): void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside the app');
  return session;
}

export function useSessionState(): Session {
  const [state, setState] = useState<SessionState>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    // A call refused mid-use: the session ended elsewhere (expiry, sign-out everywhere, password).
    whenSessionEnds(() =>
      setState((before) => (before.status === 'signed-in' ? { status: 'signed-out', ended: true } : before)),
    );
    getSession().then(
      (answer) => setState({ status: 'signed-in', account: answer.account }),
      (err) => {
        const error = toApiError(err);
        setState(error.code === 'session_required' ? { status: 'signed-out' } : { status: 'error', error });
      },
    );
  }, [attempt]);
  const signedIn = useCallback((answer: SignedIn) => setState({ status: 'signed-in', account: answer.account }), []);
  const signedOut = useCallback(() => setState({ status: 'signed-out' }), []);
  const signOut = useCallback(async () => {
    await endSession().catch(() => {});
    setState({ status: 'signed-out' });
  }, []);
  const retry = useCallback(() => {
    setState({ status: 'loading' });
    setAttempt((n) => n + 1);
  }, []);
  return {
    state,
    account: state.status === 'signed-in' ? state.account : null,
    signedIn,
    signedOut,
    signOut,
    retry,
  };
}
