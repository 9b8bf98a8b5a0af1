/** Schemas of the calling key's identity. */
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { fieldError } from '../../http/errors';
import { nullable, oneOf } from '../../http/models';
import { MAX_INSTANT } from '../../lib/time';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './passwords';
import { ROLES, SCOPES } from './table';

const SCOPE_DESCRIPTION =
  'read: every GET (and the POSTs that change nothing); write: every request; create: only POST /api/v1/links and GET /api/v1/me ' +
  '(for keys that live in a browser extension or a form).';
const ScopeModel = oneOf(SCOPES, { description: SCOPE_DESCRIPTION });
/** admin: everything; editor: links, projects, tags; viewer: read only (its own keys read or create scope). */
export const RoleModel = oneOf(ROLES);
export type Scope = typeof ScopeModel.static;

const ProjectLimit = (description: string) =>
  t.Union([t.Array(t.String(), { maxItems: 100 }), t.Null()], {
    description,
    error: fieldError('projects', 'projects must be an array of project ids, or null for all'),
  });
const DomainLimit = (description: string) =>
  t.Union([t.Array(t.String(), { maxItems: 100 }), t.Null()], {
    description,
    error: fieldError('domains', 'domains must be an array of domain hosts, or null for all'),
  });
const ACCOUNT_PROJECTS = 'The project ids it is limited to: it sees and changes only their links. null: every link.';
const KEY_PROJECTS =
  "The key's own project limit, within its account's: it sees and changes only their links. null: its account's.";
const KEY_DOMAINS = 'The domain hosts the key is limited to: it sees and changes only their links. null: every domain.';

export const MeModel = t.Object({
  scope: ScopeModel,
  key: t.Object({
    id: t.String(),
    name: nullable(t.String()),
    prefix: t.String({ description: 'The first characters of the key, safe to display.' }),
    scope: ScopeModel,
    expiresAt: nullable(Type.Integer()),
    lastUsedAt: nullable(Type.Integer()),
    createdAt: Type.Integer(),
    projects: ProjectLimit(KEY_PROJECTS),
    domains: DomainLimit(KEY_DOMAINS),
  }),
  account: t.Object({
    id: t.String(),
    email: t.String(),
    superuser: t.Boolean({ description: 'True exactly for admins: they may choose and rename slugs.' }),
    role: RoleModel,
    projects: ProjectLimit(ACCOUNT_PROJECTS),
  }),
});
export type Me = typeof MeModel.static;

// ---- the dashboard's keys and accounts (/api/app) ------------------------------------------

const KeyStatusModel = t.Union([t.Literal('active'), t.Literal('expired'), t.Literal('revoked')]);
const MaybeTime = t.Union([Type.Integer(), t.Null()]);

const KeyItemModel = t.Object(
  {
    id: t.String(),
    name: t.Union([t.String(), t.Null()]),
    prefix: t.String({ description: 'The first characters of the key, safe to display.' }),
    scope: ScopeModel,
    status: KeyStatusModel,
    createdAt: Type.Integer(),
    lastUsedAt: MaybeTime,
    expiresAt: MaybeTime,
    revokedAt: MaybeTime,
    projects: ProjectLimit(KEY_PROJECTS),
    domains: DomainLimit(KEY_DOMAINS),
  },
  { title: 'KeyItem' },
);
export type KeyItem = typeof KeyItemModel.static;

export const KeyListModel = t.Object({ items: t.Array(KeyItemModel) });

const OwnedKeyItemModel = t.Composite(
  [KeyItemModel, t.Object({ accountId: t.String(), email: t.String({ description: "The owner's email." }) })],
  { title: 'OwnedKeyItem' },
);
export type OwnedKeyItem = typeof OwnedKeyItemModel.static;

export const OwnedKeyListModel = t.Object({ items: t.Array(OwnedKeyItemModel) });

export const CreateKeyBody = t.Object({
  name: t.Optional(
    t.Union([t.String({ maxLength: 100 }), t.Null()], { error: fieldError('name', 'name is at most 100 characters') }),
  ),
  scope: t.Union([t.Literal('read'), t.Literal('write'), t.Literal('create')], {
    description: SCOPE_DESCRIPTION,
    error: fieldError('scope', 'scope must be read, write or create'),
  }),
  expiresAt: t.Optional(
    t.Union([Type.Integer({ minimum: 0, maximum: MAX_INSTANT }), t.Null()], {
      description: 'Epoch ms, in the future (at most the end of the year 9999); null or absent: never expires.',
      error: fieldError('expiresAt', 'expiresAt must be epoch milliseconds up to the year 9999, or null'),
    }),
  ),
  projects: t.Optional(ProjectLimit(`${KEY_PROJECTS} A project beyond its account's is 400.`)),
  domains: t.Optional(DomainLimit(KEY_DOMAINS)),
});

export const CreatedKeyModel = t.Object({
  key: t.String({ description: 'The secret: shown this once, never again.' }),
  item: KeyItemModel,
});

export const AccountItemModel = t.Object(
  {
    id: t.String(),
    email: t.String(),
    superuser: t.Boolean({ description: 'True exactly for admins.' }),
    role: RoleModel,
    projects: ProjectLimit(ACCOUNT_PROJECTS),
    disabled: t.Boolean({ description: 'No sign-in, keys refused.' }),
    createdAt: Type.Integer(),
    lastSignInAt: MaybeTime,
    disabledAt: t.Union([Type.Integer(), t.Null()], { description: 'When it was disabled; null while enabled.' }),
  },
  { title: 'AccountItem' },
);
export type AccountItem = typeof AccountItemModel.static;

export const AccountListModel = t.Object({ items: t.Array(AccountItemModel) });
export const AccountResultModel = t.Object({ item: AccountItemModel });

export const EmailField = t.String({ maxLength: 254, error: fieldError('email', 'email must be an email address') });

/** A password in a body; the minimum length of a new one is checked by the service (field named there too). */
export function passwordField(field: string, description?: string) {
  return t.String({
    maxLength: MAX_PASSWORD_LENGTH,
    description,
    error: fieldError(field, `${field} must be a string of at most ${MAX_PASSWORD_LENGTH} characters`),
  });
}

export const NEW_PASSWORD = `At least ${MIN_PASSWORD_LENGTH} characters.`;

const RoleField = oneOf(ROLES, {
  description: 'admin: everything; editor: links, variants, projects and tags; viewer: read only.',
  error: fieldError('role', 'role must be admin, editor or viewer'),
});

export const CreateAccountBody = t.Object({
  email: EmailField,
  password: t.Optional(
    passwordField(
      'password',
      `${NEW_PASSWORD} Absent: the account cannot sign in until a password is set (an invite, or \`slink user password\`).`,
    ),
  ),
  role: t.Optional(RoleField),
  superuser: t.Optional(
    t.Boolean({
      description: 'The older word for role admin.',
      error: fieldError('superuser', 'superuser must be true or false'),
    }),
  ),
  projects: t.Optional(ProjectLimit(`${ACCOUNT_PROJECTS} Not for an admin (400).`)),
});

export const UpdateAccountBody = t.Object({
  role: t.Optional(RoleField),
  projects: t.Optional(ProjectLimit(`${ACCOUNT_PROJECTS} Not for an admin (400).`)),
  disabled: t.Optional(t.Boolean({ error: fieldError('disabled', 'disabled must be true or false') })),
});
