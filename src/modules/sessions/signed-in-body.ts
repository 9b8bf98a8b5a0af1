/** The answer of every door that signs a person in (sign-in, setup, an invite's acceptance) and of GET /session. */
import { accountSummary } from '../auth/public';
import type { SignedInBody } from './model';
import type { SignedIn } from './service';

export function signedInBody({ account, session }: SignedIn): SignedInBody {
  return {
    account: accountSummary(account),
    session: { id: session.id, expiresAt: session.expiresAt },
  };
}
