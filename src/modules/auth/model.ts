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
  }),
  account: t.Object({
    id: t.String(),
    email: t.String(),
    superuser: t.Boolean({ description: 'True exactly for admins: they may choose and rename slugs.' }),
    role: RoleModel,
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
  },
  { title: 'KeyItem' },
);
export type KeyItem = typeof KeyItemModel.static;

export const KeyListModel = t.Object({ items: t.Array(KeyItemModel) });

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
});

export const CreatedKeyModel = t.Object({
  key: t.String({ description: 'The secret: shown this once, never again.' }),
  item: KeyItemModel,
});

export const AccountItemModel = t.Object(
  {
    id: t.String(),
    email: t.String(),
    superuser: t.Boolean(),
    role: RoleModel,
    createdAt: Type.Integer(),
    lastSignInAt: MaybeTime,
    disabledAt: t.Union([Type.Integer(), t.Null()], { description: 'Set while disabled: no sign-in, keys refused.' }),
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

export const CreateAccountBody = t.Object({
  email: EmailField,
  password: passwordField('password', NEW_PASSWORD),
  superuser: t.Optional(t.Boolean({ error: fieldError('superuser', 'superuser must be true or false') })),
});

export const UpdateAccountBody = t.Object({
  disabled: t.Boolean({ error: fieldError('disabled', 'disabled must be true or false') }),
});
