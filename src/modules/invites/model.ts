/** Schemas of invites: the API's (/api/v1/invites) and the acceptance's (/api/app/invite). */
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { fieldError } from '../../http/errors';
import { nullable, oneOf } from '../../http/models';
import { EmailField, NEW_PASSWORD, passwordField, ROLES, RoleModel } from '../auth/public';

const ProjectsField = nullable(t.Array(t.String({ maxLength: 100 }), { maxItems: 100 }), {
  description: 'The project ids the account will be limited to; null or absent for every link. Never for an admin.',
  error: fieldError('projects', 'projects must be an array of project ids, or null'),
});

export const CreateInviteBody = t.Object({
  email: EmailField,
  role: oneOf(ROLES, {
    description: 'The role of the account the invite makes: admin, editor or viewer.',
    error: fieldError('role', 'role must be admin, editor or viewer'),
  }),
  projects: t.Optional(ProjectsField),
});
export type CreateInviteInput = typeof CreateInviteBody.static;

export const CreatedInviteModel = t.Object(
  {
    id: t.String(),
    url: t.String({
      description:
        'The one-time address where the invited person sets a password: its secret is shown this once, never again.',
    }),
    expiresAt: Type.Integer({ description: 'Epoch ms: 7 days after creation.' }),
  },
  { title: 'CreatedInvite' },
);

const InviteItemModel = t.Object(
  {
    id: t.String(),
    email: t.String(),
    role: RoleModel,
    projects: nullable(t.Array(t.String())),
    createdBy: nullable(t.String(), { description: 'The inviting account; null for the CLI.' }),
    createdAt: Type.Integer(),
    expiresAt: Type.Integer(),
  },
  { title: 'Invite' },
);
export type InviteItem = typeof InviteItemModel.static;

export const InviteListModel = t.Object({ items: t.Array(InviteItemModel) });

const TokenField = t.String({
  maxLength: 100,
  description: 'The secret: the last part of the invite address.',
  error: fieldError('token', 'token must be the secret of an invite address'),
});

export const InviteTokenBody = t.Object({ token: TokenField });

export const InviteStatusModel = t.Object(
  {
    status: t.Union([t.Literal('pending'), t.Literal('used'), t.Literal('revoked'), t.Literal('expired')], {
      description: 'Only a pending invite can be accepted.',
    }),
    email: t.String(),
    role: RoleModel,
    expiresAt: Type.Integer(),
  },
  { title: 'InviteStatus' },
);
export type InviteStatus = typeof InviteStatusModel.static;

export const AcceptInviteBody = t.Object({ token: TokenField, password: passwordField('password', NEW_PASSWORD) });
