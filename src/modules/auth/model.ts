/** Schemas of the calling key's identity. */
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';

const ScopeModel = t.Union([t.Literal('read'), t.Literal('write')]);

export const MeModel = t.Object({
  scope: ScopeModel,
  key: t.Object({
    id: t.String(),
    name: t.Union([t.String(), t.Null()]),
    prefix: t.String({ description: 'The first characters of the key, safe to display.' }),
    scope: ScopeModel,
    expiresAt: t.Union([Type.Integer(), t.Null()]),
    lastUsedAt: t.Union([Type.Integer(), t.Null()]),
    createdAt: Type.Integer(),
  }),
  account: t.Object({
    id: t.String(),
    email: t.String(),
    superuser: t.Boolean({ description: 'Superuser keys may choose and rename slugs.' }),
  }),
});
export type Me = typeof MeModel.static;
