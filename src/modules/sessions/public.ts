/**
 * The sessions module's face: what other modules and the server, the CLI and the composition root
 * use of it. test/architecture/boundaries.test.ts fails on an import of any other file of this
 * folder from outside it (but its table.ts, and its routes in index.ts, which app.ts mounts).
 */
export type { SessionsBase, SessionsDeps } from './deps';
export { SignedInModel } from './model';
export {
  createPostgresSessionStore,
  createPostgresSetupTokens,
  createPostgresSignInFailures,
  deleteSessionsOfAccountPostgres,
} from './postgres/store';
export { type NewSession, type SignedIn, sessionPrincipal, startSession, verifySession } from './service';
export { endSetup, setupAddress, withdrawSetupToken } from './setup';
export { signedInBody } from './signed-in-body';
export { createSqliteSessionStore, createSqliteSetupTokens, deleteSessionsOfAccountSqlite } from './sqlite/store';
export type { FailureWindow, SessionStore, SetupTokenStore, SignInFailureStore } from './store';
export { FailureWindows, SIGN_IN_LIMITS, type SignInAttempt, SignInThrottle } from './throttle';
export { RETRY_AFTER_S, type SlotRefusal, VerificationSlots } from './verification-slots';
export { PasswordVerifier } from './verifier';
