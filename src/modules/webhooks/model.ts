/** Webhook schemas: the single source for validation, TypeScript types and OpenAPI. */
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { fieldError } from '../../http/errors';
import { DeletedModel, NextCursor, nullable, pageQuery } from '../../http/models';

export const WEBHOOK_EVENTS = ['link.created', 'link.updated', 'link.deleted', 'clicks'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/**
 * A test event (POST /webhooks/{id}/test): delivered to that webhook alone, asked by a person,
 * never subscribed to and never in the live stream.
 */
export const TEST_EVENT = 'webhook.test';
/** What a delivery carries: a subscribed event, or a test. */
export const DELIVERED_TYPES = [...WEBHOOK_EVENTS, TEST_EVENT] as const;
export type DeliveredType = (typeof DELIVERED_TYPES)[number];

export const WEBHOOK_LIMITS = {
  /** Webhooks in a workspace: each costs a delivery per event. */
  webhooks: 50,
  descriptionLength: 500,
  urlLength: 2048,
  /**
   * How long a webhook fails without a single success before it is disabled: as long as one
   * delivery is retried (retry.ts), so an outage shorter than that loses nothing.
   */
  disableAfterMs: 24 * 3_600_000,
  /** How long a rotated secret keeps signing deliveries beside the new one. */
  previousSecretForMs: 24 * 3_600_000,
} as const;

/**
 * How long a delivered `clicks` event keeps its clicks (for a live stream resuming, a redelivery):
 * they are the bulk of the outbox, ~400 bytes a click, where the click itself is stored in ~70.
 */
export const CLICKS_KEPT_FOR_MS = 3_600_000;

const EVENTS_MEANING = `The event types delivered, at least one of: ${WEBHOOK_EVENTS.join(', ')}.`;

export const WebhookModel = t.Object(
  {
    id: t.String(),
    url: t.String({ description: 'Where deliveries are POSTed: an absolute http(s) URL.' }),
    description: nullable(t.String()),
    events: t.Array(t.UnionEnum([...WEBHOOK_EVENTS]), { description: EVENTS_MEANING }),
    bots: t.Boolean({ description: 'true: `clicks` events carry bot hits too; false (default): human clicks only.' }),
    active: t.Boolean({
      description:
        'false: nothing is sent; its events are still recorded (kept 7 days) and delivered once it is active again. Set false, with disabledReason, once it has failed for 24 hours without a single success.',
    }),
    previousSecretUntil: nullable(Type.Integer(), {
      description:
        'After a rotation, while the replaced secret still signs: until when (epoch ms) deliveries carry its v1 signature too in webhook-signature; null otherwise.',
    }),
    consecutiveFailures: Type.Integer({ description: 'Attempts failed in a row since the last success.' }),
    failingSince: nullable(Type.Integer(), {
      description:
        'When it started failing (the first failed attempt since the last success or since it was enabled), epoch ms; null while it succeeds. 24 hours later without a success it is disabled.',
    }),
    disabledReason: nullable(t.String(), {
      description: 'Why the webhook was disabled automatically; null otherwise. PATCH active: true clears it.',
    }),
    createdAt: Type.Integer(),
    updatedAt: Type.Integer(),
  },
  { title: 'Webhook' },
);
export type Webhook = typeof WebhookModel.static;

export const CreatedWebhookModel = t.Object(
  {
    ...WebhookModel.properties,
    secret: t.String({
      description:
        "whsec_ and base64: the key of the deliveries' webhook-signature (Standard Webhooks). Shown only in this answer.",
    }),
  },
  { title: 'CreatedWebhook' },
);

export const RotatedWebhookModel = t.Object(
  {
    ...WebhookModel.properties,
    secret: t.String({
      description:
        'The new secret (whsec_ and base64), shown only in this answer. The replaced one signs too until previousSecretUntil.',
    }),
  },
  { title: 'RotatedWebhook' },
);

export const WebhookListModel = t.Object({ items: t.Array(WebhookModel) });

const Url = t.String({
  maxLength: WEBHOOK_LIMITS.urlLength,
  description: `Absolute http(s) URL, at most ${WEBHOOK_LIMITS.urlLength} characters, no user:password; loopback and private addresses are refused unless SLINK_WEBHOOKS_ALLOW_PRIVATE=1 (checked at create and again at each delivery, after DNS resolution).`,
  error: fieldError('url', 'url must be an absolute http(s) URL'),
});
const Events = t.Array(
  t.UnionEnum([...WEBHOOK_EVENTS], {
    error: fieldError('events', `events must hold only ${WEBHOOK_EVENTS.join(', ')}`),
  }),
  {
    minItems: 1,
    maxItems: WEBHOOK_EVENTS.length * 2,
    description: EVENTS_MEANING,
    error: fieldError('events', `events must be a non-empty array of ${WEBHOOK_EVENTS.join(', ')}`),
  },
);
const Description = nullable(t.String({ maxLength: WEBHOOK_LIMITS.descriptionLength }), {
  error: fieldError(
    'description',
    `description must be a string of at most ${WEBHOOK_LIMITS.descriptionLength} characters, or null`,
  ),
});
const Bots = t.Boolean({ error: fieldError('bots', 'bots must be true or false') });

export const CreateWebhookBody = t.Object({
  url: Url,
  events: Events,
  description: t.Optional(Description),
  bots: t.Optional(Bots),
});
export type CreateWebhookInput = typeof CreateWebhookBody.static;

export const UpdateWebhookBody = t.Object({
  url: t.Optional(Url),
  events: t.Optional(Events),
  description: t.Optional(Description),
  bots: t.Optional(Bots),
  active: t.Optional(
    t.Boolean({
      description:
        'false pauses deliveries (events are still recorded); true resumes them, delivers what was recorded meanwhile and clears the failures and the reason.',
      error: fieldError('active', 'active must be true or false'),
    }),
  ),
});
export type UpdateWebhookInput = typeof UpdateWebhookBody.static;

export const WebhookDeletedModel = DeletedModel;

export const DeliveryAttemptModel = t.Object(
  {
    id: Type.Integer({ description: 'The attempt.' }),
    deliveryId: Type.Integer({ description: 'The delivery (one event to this webhook): what POST .../retry takes.' }),
    eventId: t.String({ description: 'The event, the webhook-id header of every attempt of it.' }),
    type: t.UnionEnum([...DELIVERED_TYPES]),
    attempt: Type.Integer({ description: '1 for the first attempt of the delivery.' }),
    statusCode: nullable(Type.Integer(), { description: "The receiver's status; null when none came." }),
    error: nullable(t.String(), { description: 'Why it failed; null for a success.' }),
    durationMs: Type.Integer(),
    at: Type.Integer({ description: 'When the attempt started, epoch ms.' }),
    request: t.String({ description: 'The body sent (its first 4 KB).' }),
    response: t.String({ description: "The receiver's answer (its first 2 KB)." }),
    nextAttemptAt: nullable(Type.Integer(), {
      description:
        "On the newest attempt of a delivery still waiting (a retry, a redelivery, or a disabled webhook's enabling): when it is due, epoch ms; null otherwise.",
    }),
    gaveUp: t.Boolean({
      description: 'true on the last attempt of a delivery given up: it failed for 24 hours, nothing more is tried.',
    }),
  },
  { title: 'DeliveryAttempt' },
);
export type DeliveryAttempt = typeof DeliveryAttemptModel.static;

export const DeliveryListModel = t.Object({
  items: t.Array(DeliveryAttemptModel, { description: 'Newest first.' }),
  cursor: NextCursor,
});

export const DeliveryParams = t.Object({
  id: t.String(),
  deliveryId: t.String({ error: fieldError('deliveryId', 'deliveryId must be a delivery id') }),
});

export const DeliveriesQuery = t.Object(pageQuery(100, { default: 50 }));

export const TestSentModel = t.Object({
  deliveryId: Type.Integer({ description: 'The test delivery, in the delivery log once attempted.' }),
  eventId: t.String({ description: 'The test event, the webhook-id of its delivery.' }),
});

export const RetriedModel = t.Object({
  deliveryId: Type.Integer(),
  retried: t.Literal(true, { description: 'The delivery is due now: the sender attempts it within a second.' }),
});
