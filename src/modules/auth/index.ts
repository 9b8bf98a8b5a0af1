/** GET /me: who the calling key is and what it may do. */
import { Elysia } from 'elysia';
import { principalPlugin } from '../../http/auth';
import { errors } from '../../http/models';
import { accountSummary } from './accounts';
import type { AuthDeps } from './deps';
import type { Principal } from './keys';
import { hostsOf } from './limits';
import { type Me, MeModel } from './model';

async function describePrincipal(deps: AuthDeps, { key, account }: Principal): Promise<Me> {
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
      projects: key.projects,
      domains: await hostsOf(deps, key.domains),
    },
    account: accountSummary(account),
  };
}

export function meRoutes(deps: AuthDeps) {
  return new Elysia({ name: 'slink.me' })
    .use(principalPlugin)
    .get('/me', ({ principal }) => describePrincipal(deps, principal), {
      response: { 200: MeModel, ...errors(401, 429) },
      detail: { tags: ['Identity'], summary: 'The calling key and its account' },
    });
}

/** The API's accounts, and the dashboard's account and key routes, mounted by app.ts beside these. */
export { accountsRoutes } from './api-routes';
export { appAccountsRoutes, appKeysRoutes } from './app-routes';
