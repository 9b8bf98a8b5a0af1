/** /webhooks routes: where events are delivered (docs/behaviour.md, "Webhooks"). */
import { Elysia } from 'elysia';
import type { Deps } from '../../deps';
import { principalPlugin } from '../../http/auth';
import { errors, IdParams } from '../../http/models';
import {
  CreatedWebhookModel,
  CreateWebhookBody,
  UpdateWebhookBody,
  WebhookDeletedModel,
  WebhookListModel,
  WebhookModel,
} from './model';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, updateWebhook } from './service';

const tags = ['Webhooks'];

export function webhooksRoutes(deps: Deps) {
  return new Elysia({ name: 'slink.webhooks', prefix: '/webhooks' })
    .use(principalPlugin)
    .get('', () => listWebhooks(deps), {
      response: { 200: WebhookListModel, ...errors(401, 429) },
      detail: { tags, summary: 'List webhooks', description: 'Oldest first. Secrets are never answered again.' },
    })
    .post(
      '',
      ({ body, set }) => {
        set.status = 201;
        return createWebhook(deps, body);
      },
      {
        parse: 'json',
        body: CreateWebhookBody,
        response: { 201: CreatedWebhookModel, ...errors(400, 401, 403, 409, 429) },
        detail: {
          tags,
          summary: 'Create a webhook',
          description:
            'The answer carries the secret that signs its deliveries (Standard Webhooks), the only time it is shown. 409 when the workspace has its maximum of webhooks.',
        },
      },
    )
    .get('/:id', ({ params }) => getWebhook(deps, params.id), {
      params: IdParams,
      response: { 200: WebhookModel, ...errors(401, 404, 429) },
      detail: { tags, summary: 'Get a webhook' },
    })
    .patch('/:id', ({ params, body }) => updateWebhook(deps, params.id, body), {
      parse: 'json',
      params: IdParams,
      body: UpdateWebhookBody,
      response: { 200: WebhookModel, ...errors(400, 401, 403, 404, 429) },
      detail: {
        tags,
        summary: 'Change a webhook',
        description: 'Only the fields sent change. active: true re-activates it and clears its failure count.',
      },
    })
    .delete('/:id', ({ params }) => deleteWebhook(deps, params.id), {
      params: IdParams,
      response: { 200: WebhookDeletedModel, ...errors(401, 403, 404, 429) },
      detail: { tags, summary: 'Delete a webhook', description: 'Its pending deliveries are dropped.' },
    });
}
