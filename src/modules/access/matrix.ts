/**
 * The authorisation matrix: every action a caller may attempt, and who may. This table is the
 * one definition: authorize() reads it, docs/behaviour.md publishes it ("Who may do what"), and
 * test/modules/access/ runs one request per cell of it through real HTTP on both engines.
 *
 * A row says which effective scopes may act (a viewer's session and its older write keys act as
 * `read`; see accessOf), whether only an admin may (else 403 superuser_required), and whether a
 * credential limited to projects or domains may (else 403 insufficient_scope: such a caller
 * cannot see everything the action touches). Targets outside a caller's limits are 404 where the
 * target is read or changed, and 400 (field `projectId` or `domain`) where a link is made there.
 */
import type { EffectiveScope } from './model';

export interface Rule {
  /** One line for the published matrix. */
  what: string;
  scopes: readonly EffectiveScope[];
  adminOnly: boolean;
  /** A caller limited to projects or domains may (its answers and changes stay within them). */
  limited: boolean;
  /** The field named when refused (an admin-only part of a link change names `slug`). */
  field?: string;
}

const READ = ['read', 'write'] as const;
const WRITE = ['write'] as const;

export const MATRIX = {
  'me.read': {
    what: 'Read who one is (GET /me)',
    scopes: ['read', 'write', 'create'],
    adminOnly: false,
    limited: true,
  },
  'link.read': {
    what: 'Read links, their tags, statistics, clicks, exports, QR codes, variants and rule tests',
    scopes: READ,
    adminOnly: false,
    limited: true,
  },
  'link.create': {
    what: 'Create links (one or in bulk)',
    scopes: ['write', 'create'],
    adminOnly: false,
    limited: true,
  },
  'link.update': {
    what: 'Change links (fields, tags, project, status, variants; also in bulk)',
    scopes: WRITE,
    adminOnly: false,
    limited: true,
  },
  'link.delete': { what: 'Delete links (one or in bulk)', scopes: WRITE, adminOnly: false, limited: true },
  'link.slug': {
    what: "Choose a custom slug, rename a slug, move a link to another domain (a link's public address)",
    scopes: ['write', 'create'],
    adminOnly: true,
    limited: true,
    field: 'slug',
  },
  'workspace.read': {
    what: 'Read the workspace, its statistics and its privacy receipt',
    scopes: READ,
    adminOnly: false,
    limited: true,
  },
  'project.read': { what: 'List projects', scopes: READ, adminOnly: false, limited: true },
  'project.create': { what: 'Create projects', scopes: WRITE, adminOnly: false, limited: false },
  'project.update': { what: 'Rename a project', scopes: WRITE, adminOnly: false, limited: true },
  'project.delete': { what: 'Delete projects', scopes: WRITE, adminOnly: false, limited: false },
  'domain.read': { what: 'List and read short domains', scopes: READ, adminOnly: false, limited: true },
  'domain.write': { what: 'Add, change and delete short domains', scopes: WRITE, adminOnly: true, limited: false },
  'events.read': { what: 'Follow live events (of the links one sees)', scopes: READ, adminOnly: false, limited: true },
  'webhook.read': { what: 'Read webhooks and their deliveries', scopes: READ, adminOnly: true, limited: false },
  'webhook.write': {
    what: 'Add, change, test, re-send, rotate and delete webhooks',
    scopes: WRITE,
    adminOnly: true,
    limited: false,
  },
  'key.own': { what: "Manage one's own keys and sessions", scopes: READ, adminOnly: false, limited: true },
  'key.any': { what: "List and revoke other accounts' keys", scopes: WRITE, adminOnly: true, limited: false },
  'account.read': { what: 'List accounts', scopes: READ, adminOnly: true, limited: false },
  'account.write': {
    what: 'Create accounts, change their role, projects and status',
    scopes: WRITE,
    adminOnly: true,
    limited: false,
  },
  'invite.read': { what: 'List pending invites', scopes: READ, adminOnly: true, limited: false },
  'invite.write': { what: 'Invite people and revoke invites', scopes: WRITE, adminOnly: true, limited: false },
  'audit.read': { what: 'Read the audit log', scopes: READ, adminOnly: true, limited: false },
  'export.read': {
    what: 'Export the workspace (domains, projects, links, raw clicks)',
    scopes: READ,
    adminOnly: true,
    limited: false,
  },
  'import.read': {
    what: 'Read imports and their reports',
    scopes: READ,
    adminOnly: true,
    limited: false,
  },
  'import.write': {
    what: 'Start and cancel imports (links and their history from another service or an export)',
    scopes: WRITE,
    adminOnly: true,
    limited: false,
  },
} as const satisfies Record<string, Rule>;

export type Action = keyof typeof MATRIX;

export const ACTIONS = Object.keys(MATRIX) as Action[];
