/** Schemas of the calling key's identity. */
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { nullable, oneOf } from '../../http/models';
import { SCOPES } from './table';

const ScopeModel = oneOf(SCOPES);
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
    superuser: t.Boolean({ description: 'Superuser keys may choose and rename slugs.' }),
  }),
});
export type Me = typeof MeModel.static;
