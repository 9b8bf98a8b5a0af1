/** /api/app/keys and /api/app/accounts: a signed-in person's API keys, and accounts for admins. */
import { Elysia } from 'elysia';
import { appAccess } from '../../http/app-guard';
import { appDetail, errors, IdParams, noContentResponses } from '../../http/models';
import { ACCOUNT_CREATE, ACCOUNT_UPDATE } from './api-routes';
import {
  createAccountAs,
  createOwnKey,
  listAccountsAs,
  listEveryKeyAs,
  listOwnKeys,
  revokeKeyAs,
  updateAccountAs,
} from './dashboard';
import type { AuthDeps } from './deps';
import {
  AccountListModel,
  AccountResultModel,
  CreateAccountBody,
  CreatedKeyModel,
  CreateKeyBody,
  KeyListModel,
  OwnedKeyListModel,
  UpdateAccountBody,
} from './model';

const SUPERUSERS = 'Admins only (else 403 superuser_required).';

export function appKeysRoutes(deps: AuthDeps) {
  return new Elysia({ name: 'slink.app.keys', prefix: '/keys' })
    .get('', async ({ request }) => ({ items: await listOwnKeys(deps, appAccess(request)) }), {
      response: { 200: KeyListModel, ...errors(403) },
      detail: appDetail('Your API keys', 'Newest first, never the secret.'),
    })
    .get('/all', async ({ request }) => ({ items: await listEveryKeyAs(deps, appAccess(request)) }), {
      response: { 200: OwnedKeyListModel, ...errors(403) },
      detail: appDetail(
        "Every account's keys",
        `With the owner's email, newest first, never the secret. ${SUPERUSERS}`,
      ),
    })
    .post(
      '',
      ({ body, request, set }) => {
        set.status = 201;
        return createOwnKey(deps, appAccess(request), body);
      },
      {
        parse: 'json',
        body: CreateKeyBody,
        response: { 201: CreatedKeyModel, ...errors(400, 403, 413, 415) },
        detail: appDetail(
          'Create an API key',
          "The answer holds the secret (`key`): shown this once, never again. A viewer's key is read only (else 403 insufficient_scope).",
        ),
      },
    )
    .delete(
      '/:id',
      async ({ params, request, set }) => {
        await revokeKeyAs(deps, appAccess(request), params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        detail: {
          ...appDetail('Revoke an API key', 'Your own keys; a superuser any key. A key you cannot see is 404.'),
          responses: noContentResponses('Revoked', 403, 404),
        },
      },
    );
}

export function appAccountsRoutes(deps: AuthDeps) {
  return new Elysia({ name: 'slink.app.accounts', prefix: '/accounts' })
    .get('', async ({ request }) => ({ items: await listAccountsAs(deps, appAccess(request)) }), {
      response: { 200: AccountListModel, ...errors(403) },
      detail: appDetail('Accounts', `Oldest first. ${SUPERUSERS}`),
    })
    .post(
      '',
      async ({ body, request, set }) => {
        set.status = 201;
        return { item: await createAccountAs(deps, appAccess(request), body) };
      },
      {
        parse: 'json',
        body: CreateAccountBody,
        response: { 201: AccountResultModel, ...errors(400, 403, 409, 413, 415) },
        detail: appDetail('Create an account', `${ACCOUNT_CREATE} ${SUPERUSERS}`),
      },
    )
    .patch(
      '/:id',
      async ({ params, body, request }) => ({
        item: await updateAccountAs(deps, appAccess(request), params.id, body),
      }),
      {
        parse: 'json',
        params: IdParams,
        body: UpdateAccountBody,
        response: { 200: AccountResultModel, ...errors(400, 403, 404, 409, 413, 415) },
        detail: appDetail('Change an account', `${ACCOUNT_UPDATE} ${SUPERUSERS}`),
      },
    );
}
