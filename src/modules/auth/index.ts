/** GET /me: who the calling key is and what it may do. */
import { Elysia } from 'elysia';
import { principalPlugin } from '../../http/auth';
import { errors } from '../../http/models';
import { isAdmin } from './accounts';
import type { Principal } from './keys';
import { type Me, MeModel } from './model';

function describePrincipal({ key, account }: Principal): Me {
  return {
    scope: key.scope,
    key: {
      id: key.id,
      name: key.name,
      prefix: key.prefix,
      scope: key.scope,
      expiresAt: key.expiresAt,
      lastUsedAt: key.lastUsedAt,
      createdAt: key.createdAt,
    },
    account: { id: account.id, email: account.email, superuser: isAdmin(account), role: account.role },
  };
}

export function meRoutes() {
  return new Elysia({ name: 'slink.me' })
    .use(principalPlugin)
    .get('/me', ({ principal }) => describePrincipal(principal), {
      response: { 200: MeModel, ...errors(401, 429) },
      detail: { tags: ['Identity'], summary: 'The calling key and its account' },
    });
}

/** The dashboard's account and key routes, mounted by app.ts beside these. */
export { appAccountsRoutes, appKeysRoutes } from './app-routes';
