/**
 * What the invites module needs: its store, the accounts (auth) and the projects it checks ids
 * against; accepting an invite also signs in, so it needs what sessions need.
 */
import type { AuthDeps } from '../auth/public';
import type { ProjectStore } from '../projects/public';
import type { SessionsDeps } from '../sessions/public';
import type { InviteStore } from './store';

interface InviteStores {
  readonly invites: InviteStore;
  readonly projects: ProjectStore;
}

/** Inviting, listing and revoking: what the CLI has as well as the server. */
export interface InvitesBase extends AuthDeps {
  stores: AuthDeps['stores'] & InviteStores;
}

/** Looking an invite address up and accepting it: only the server has these. */
export interface InvitesDeps extends SessionsDeps {
  stores: SessionsDeps['stores'] & InviteStores;
}
