/**
 * Who is asking, as every authorisation decision reads it: made once per request from the
 * verified credential (accessOf), or built by the CLI for the operator at the box.
 */

/**
 * What an API key may do: read (GET), write (every method), or create (only create links and
 * read /me: for keys that live in a browser extension or a form, where a leak must not expose
 * the links already made).
 */
export const SCOPES = ['read', 'write', 'create'] as const;
export type Scope = (typeof SCOPES)[number];

/** What an account may do: admin everything, editor change links, viewer only read (matrix.ts). */
export const ROLES = ['admin', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Through what a change came: the audit log's `via`. */
export type Via = 'api' | 'dashboard' | 'cli' | 'mcp';

/** The scope a credential acts with, after it was narrowed to its account's role. */
export type EffectiveScope = Scope;

/** What accessOf reads of a verified credential: its account and its key (a session stands for a write key). */
export interface Credential {
  account: { id: string; role: Role; projects: readonly string[] | null };
  key: { id: string; scope: Scope; projects: readonly string[] | null; domains: readonly number[] | null };
}

export interface Access {
  /** The account acting; null for the operator's CLI, which acts for nobody in particular. */
  accountId: string | null;
  /** The key used; null for a dashboard session and the CLI. */
  keyId: string | null;
  role: Role;
  scope: EffectiveScope;
  /** The project ids it sees (the account's limit and the key's, intersected); null for all. */
  projects: readonly string[] | null;
  /** The domain ids it sees (the key's limit); null for all. */
  domains: readonly number[] | null;
  via: Via;
  /** role === 'admin': what older code called a superuser, kept for the services that ask. */
  superuser: boolean;
}

/** What a link-shaped target carries for visibility: its project and its domain. */
export interface Placed {
  projectId: string | null;
  domainId: number;
}
