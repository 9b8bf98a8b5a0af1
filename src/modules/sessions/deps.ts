/** What the sessions module needs: the accounts' stores (auth) with its own, then sign-in's throttle and verifier. */
import type { Logger } from '../../lib/log';
import type { AuthDeps } from '../auth/public';
import type { SessionStore, SetupTokenStore } from './store';
import type { SignInThrottle } from './throttle';

/** Sessions' stores: what the CLI has as well as the server. */
export interface SessionsBase extends AuthDeps {
  stores: AuthDeps['stores'] & { readonly sessions: SessionStore; readonly setupTokens: SetupTokenStore };
  log: Logger;
}

/** Sign-in and first-run setup: only the server has these. */
export interface SessionsDeps extends SessionsBase {
  /** First-run setup secret, new at every start (setup.ts). */
  setupToken: string;
  signInThrottle: SignInThrottle;
  verifyPassword: (password: string, hash: string) => Promise<boolean>;
}
