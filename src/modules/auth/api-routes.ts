/** /api/v1/accounts: admins list, create and change accounts (the dashboard's /api/app/accounts share the verbs and shapes). */
import { Elysia } from 'elysia';
import { principalPlugin } from '../../http/auth';
import { errors, IdParams } from '../../http/models';
import { createAccountAs, listAccountsAs, updateAccountAs } from './dashboard';
import type { AuthDeps } from './deps';
import { AccountListModel, AccountResultModel, CreateAccountBody, UpdateAccountBody } from './model';

export const ACCOUNT_CREATE =
  'role defaults to editor. Without a password the account cannot sign in until one is set (an invite, or `slink user password`). A duplicate email is 409 conflict; an admin limited to projects, or an unknown project, is 400 (field projects).';

export const ACCOUNT_UPDATE =
  "Absent fields stay as they are. The last active admin can be neither demoted nor disabled (409 conflict). An admin cannot be limited to projects (400 field projects); one made admin loses its limit. Lowering the role or narrowing the projects narrows the account's keys in the same change: a new viewer's write keys become read, the keys' project limits are cut to the account's new ones. Disabling ends its sessions and revokes its API keys (401 key_revoked), for good: enabling it again gives back sign-in, not the keys. Nobody can disable their own account (400 field disabled).";

const ADMINS =
  'Admins only (else 403 superuser_required; a key limited to projects or domains: 403 insufficient_scope).';
const detail = (summary: string, description: string) => ({ tags: ['Accounts'], summary, description });

export function accountsRoutes(deps: AuthDeps) {
  return new Elysia({ name: 'slink.accounts', prefix: '/accounts' })
    .use(principalPlugin)
    .get('', async ({ access }) => ({ items: await listAccountsAs(deps, access) }), {
      response: { 200: AccountListModel, ...errors(401, 403, 429) },
      detail: detail('List accounts', `Oldest first. ${ADMINS}`),
    })
    .post(
      '',
      async ({ access, body, set }) => {
        const item = await createAccountAs(deps, access, body);
        set.status = 201;
        return { item };
      },
      {
        parse: 'json',
        body: CreateAccountBody,
        response: { 201: AccountResultModel, ...errors(400, 401, 403, 409, 413, 415, 429) },
        detail: detail('Create an account', `${ACCOUNT_CREATE} ${ADMINS}`),
      },
    )
    .patch(
      '/:id',
      async ({ access, params, body }) => ({ item: await updateAccountAs(deps, access, params.id, body) }),
      {
        parse: 'json',
        params: IdParams,
        body: UpdateAccountBody,
        response: { 200: AccountResultModel, ...errors(400, 401, 403, 404, 409, 413, 415, 429) },
        detail: detail('Change an account', `${ACCOUNT_UPDATE} ${ADMINS}`),
      },
    );
}
