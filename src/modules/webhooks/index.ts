/** /webhooks routes: where events are delivered (docs/behaviour.md, "Webhooks"). */
import { Elysia } from 'elysia';
import { principalPlugin } from '../../http/auth';
import { errors, IdParams } from '../../http/models';
import type { WebhookRoutesDeps } from './deps';
import {
  CreatedWebhookModel,
  CreateWebhookBody,
  DeliveriesQuery,
  DeliveryListModel,
  DeliveryParams,
  RetriedModel,
  RotatedWebhookModel,
  TestSentModel,
  UpdateWebhookBody,
  WebhookDeletedModel,
  WebhookListModel,
  WebhookModel,
} from './model';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  retryDelivery,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
} from './service';

const tags = ['Webhooks'];

export function webhooksRoutes(deps: WebhookRoutesDeps) {
  return new Elysia({ name: 'slink.webhooks', prefix: '/webhooks' })
    .use(principalPlugin)
    .get('', () => listWebhooks(deps), {
      response: { 200: WebhookListModel, ...errors(401, 429) },
      detail: { tags, summary: 'List webhooks', description: 'Oldest first. Secrets are never answered again.' },
    })
    .post(
      '',
      ({ body, set, access }) => {
        set.status = 201;
        return createWebhook(deps, access, body);
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
    .patch('/:id', ({ params, body, access }) => updateWebhook(deps, access, params.id, body), {
      parse: 'json',
      params: IdParams,
      body: UpdateWebhookBody,
      response: { 200: WebhookModel, ...errors(400, 401, 403, 404, 429) },
      detail: {
        tags,
        summary: 'Change a webhook',
        description:
          'Only the fields sent change. active: true re-activates it, clears its failures and delivers the events recorded while it was not active.',
      },
    })
    .get('/:id/deliveries', ({ params, query }) => listDeliveries(deps, params.id, query), {
      params: IdParams,
      query: DeliveriesQuery,
      response: { 200: DeliveryListModel, ...errors(400, 401, 404, 429) },
      detail: {
        tags,
        summary: "A webhook's delivery log",
        description:
          'Each attempt, newest first: the event, the attempt number, the status code or the error, the duration, the time, and the start of the request and of the answer. Kept for 7 days.',
      },
    })
    .post('/:id/deliveries/:deliveryId/retry', ({ params }) => retryDelivery(deps, params.id, params.deliveryId), {
      params: DeliveryParams,
      response: { 200: RetriedModel, ...errors(401, 403, 404, 409, 429) },
      detail: {
        tags,
        summary: 'Deliver an event again now',
        description:
          'Delivered already or not, the event is sent again within a second, with the same webhook-id (a receiver that keeps ids drops the repeat). 409 conflict (field active) while the webhook is disabled: nothing is sent until it is enabled; 409 (field deliveryId) for a clicks event whose clicks are gone.',
      },
    })
    .post(
      '/:id/test',
      ({ params, set }) => {
        set.status = 202;
        return sendTestEvent(deps, params.id);
      },
      {
        params: IdParams,
        response: { 202: TestSentModel, ...errors(401, 403, 404, 409, 429) },
        detail: {
          tags,
          summary: 'Send a test event',
          description:
            'Sends this webhook alone a webhook.test event ({webhookId, message}) within a second, signed like any delivery and retried like any; its outcome shows in the delivery log. Never in the live stream. 409 conflict (field active) while the webhook is disabled.',
        },
      },
    )
    .post('/:id/rotate-secret', ({ params, access }) => rotateWebhookSecret(deps, access, params.id), {
      params: IdParams,
      response: { 200: RotatedWebhookModel, ...errors(401, 403, 404, 429) },
      detail: {
        tags,
        summary: "Rotate a webhook's secret",
        description:
          'Answers a new secret, the only time it is shown. For 24 hours deliveries carry two signatures in webhook-signature (space-separated, Standard Webhooks), one with the new secret and one with the replaced one, so a receiver can switch over without refusing any; then only the new one.',
      },
    })
    .delete('/:id', ({ params, access }) => deleteWebhook(deps, access, params.id), {
      params: IdParams,
      response: { 200: WebhookDeletedModel, ...errors(401, 403, 404, 429) },
      detail: { tags, summary: 'Delete a webhook', description: 'Its pending deliveries are dropped.' },
    });
}

/** The live stream's route, mounted by app.ts beside these. */
export { liveRoutes } from './live-routes';
