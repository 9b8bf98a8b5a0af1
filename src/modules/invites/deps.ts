/** What the invites module needs: its store, the accounts (auth) and sessions beside it, the projects it checks ids against. */
import type { ProjectStore } from '../projects/public';
import type { SessionsDeps } from '../sessions/public';
import type { InviteStore } from './store';

export interface InvitesDeps extends SessionsDeps {
  stores: SessionsDeps['stores'] & { readonly invites: InviteStore; readonly projects: ProjectStore };
}
