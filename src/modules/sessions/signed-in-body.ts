/** The answer of every door that signs a person in (sign-in, setup, an invite's acceptance) and of GET /session. */
import { isAdmin } from '../auth/public';
import type { SignedInBody } from './model';
import type { SignedIn } from './service';

export function signedInBody({ account, session }: SignedIn): SignedInBody {
  return {
    account: {
      id: account.id,
      email: account.email,
      superuser: isAdmin(account),
      role: account.role,
      projects: account.projects,
    },
    session: { id: session.id, expiresAt: session.expiresAt },
  };
}
