/** Schemas of the calling key's identity. */
import { t } from 'elysia';

export const MeModel = t.Object({
  scope: t.UnionEnum(['read', 'write']),
  key: t.Object({
    id: t.String(),
    name: t.Union([t.String(), t.Null()]),
    prefix: t.String({ description: 'The first characters of the key, safe to display.' }),
    scope: t.UnionEnum(['read', 'write']),
    expiresAt: t.Union([t.Integer(), t.Null()]),
    lastUsedAt: t.Union([t.Integer(), t.Null()]),
    createdAt: t.Integer(),
  }),
  account: t.Object({
    id: t.String(),
    email: t.String(),
    superuser: t.Boolean({ description: 'Superuser keys may choose and rename slugs.' }),
  }),
});
export type Me = typeof MeModel.static;
