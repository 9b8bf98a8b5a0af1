/** Schemas of the dashboard's session endpoints (/api/app: setup, session, sessions, password). */
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { EmailField, NEW_PASSWORD, passwordField, RoleModel } from '../auth/public';

const AccountModel = t.Object({
  id: t.String(),
  email: t.String(),
  superuser: t.Boolean(),
  role: RoleModel,
  projects: t.Union([t.Array(t.String()), t.Null()], {
    description: 'The project ids the account is limited to (it sees and changes only their links); null: every link.',
  }),
});

export const SignedInModel = t.Object(
  {
    account: AccountModel,
    session: t.Object({ id: t.String(), expiresAt: Type.Integer({ description: 'Epoch ms: the absolute expiry' }) }),
  },
  { title: 'SignedIn' },
);
export type SignedInBody = typeof SignedInModel.static;

export const SetupStatusModel = t.Object({
  needed: t.Boolean({ description: 'True while no account exists.' }),
});

export const SetupBody = t.Object({
  token: t.String({ maxLength: 100, description: 'The token of the setup address in the server log.' }),
  email: EmailField,
  password: passwordField('password', NEW_PASSWORD),
});

export const SignInBody = t.Object({ email: EmailField, password: passwordField('password') });

export const SessionListModel = t.Object({
  items: t.Array(
    t.Object({
      id: t.String(),
      createdAt: Type.Integer(),
      lastSeenAt: Type.Integer({ description: 'Updated at most once a minute.' }),
      expiresAt: Type.Integer({ description: 'Absolute expiry; the session also ends after 7 idle days.' }),
      userAgent: t.Union([t.String(), t.Null()], { description: 'The first 200 characters of the User-Agent.' }),
      browser: t.Union([t.String(), t.Null()], {
        description:
          'The browser read from the User-Agent, named as in the statistics (`Chrome`, `Mobile Safari`); null when unknown.',
      }),
      os: t.Union([t.String(), t.Null()], {
        description:
          'The operating system read from the User-Agent, named as in the statistics (`Windows`, `iOS`); null when unknown.',
      }),
      current: t.Boolean({ description: "This request's own session." }),
    }),
  ),
});

export const PasswordBody = t.Object({
  currentPassword: passwordField('currentPassword'),
  newPassword: passwordField('newPassword', NEW_PASSWORD),
});
