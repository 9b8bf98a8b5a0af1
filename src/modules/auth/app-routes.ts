/** /api/app/keys and /api/app/accounts: a signed-in person's API keys, and accounts for superusers. */
import { Elysia } from 'elysia';
import { signedIn } from '../../http/app-guard';
import { appDetail, errors, IdParams, noContentResponses } from '../../http/models';
import { setAccountDisabled } from './admin';
import { createAccountAs, createOwnKey, listAccountsAs, listOwnKeys, revokeKeyAs, toAccountItem } from './dashboard';
import type { AuthDeps } from './deps';
import {
  AccountListModel,
  AccountResultModel,
  CreateAccountBody,
  CreatedKeyModel,
  CreateKeyBody,
  KeyListModel,
  UpdateAccountBody,
} from './model';

const SUPERUSERS = 'Superusers only (else 403 superuser_required).';

export function appKeysRoutes(deps: AuthDeps) {
  return new Elysia({ name: 'slink.app.keys', prefix: '/keys' })
    .get('', async ({ request }) => ({ items: await listOwnKeys(deps, signedIn(request).account) }), {
      response: { 200: KeyListModel, ...errors(403) },
      detail: appDetail('Your API keys', 'Newest first, never the secret.'),
    })
    .post(
      '',
      ({ body, request, set }) => {
        set.status = 201;
        return createOwnKey(deps, signedIn(request).account, body);
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
        await revokeKeyAs(deps, signedIn(request).account, params.id);
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
    .get('', async ({ request }) => ({ items: await listAccountsAs(deps, signedIn(request).account) }), {
      response: { 200: AccountListModel, ...errors(403) },
      detail: appDetail('Accounts', `Oldest first. ${SUPERUSERS}`),
    })
    .post(
      '',
      async ({ body, request, set }) => {
        set.status = 201;
        return { item: await createAccountAs(deps, signedIn(request).account, body) };
      },
      {
        parse: 'json',
        body: CreateAccountBody,
        response: { 201: AccountResultModel, ...errors(400, 403, 409, 413, 415) },
        detail: appDetail('Create an account', `A duplicate email is 409 conflict. ${SUPERUSERS}`),
      },
    )
    .patch(
      '/:id',
      async ({ params, body, request }) => ({
        item: toAccountItem(await setAccountDisabled(deps, signedIn(request).account, params.id, body.disabled)),
      }),
      {
        parse: 'json',
        params: IdParams,
        body: UpdateAccountBody,
        response: { 200: AccountResultModel, ...errors(400, 403, 404, 413, 415) },
        detail: appDetail(
          'Disable or enable an account',
          `Disabling ends its sessions and revokes its API keys (401 key_revoked), for good: enabling it again gives back sign-in, not the keys. You cannot disable your own account (400 field disabled). ${SUPERUSERS}`,
        ),
      },
    );
}
