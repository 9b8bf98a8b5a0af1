/** Webhook verbs: where events go. Plain functions of (deps, input); they throw AppError, never HTTP. */

import { conflict, invalid, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { hasControlChars } from '../../lib/text';
import type { Access } from '../access/public';
import { auditEntry, fieldsOf } from '../audit/public';
import type { WebhookRoutesDeps } from './deps';
import {
  CLICKS_KEPT_FOR_MS,
  type CreateWebhookInput,
  type DeliveredType,
  type DeliveryAttempt,
  type UpdateWebhookInput,
  WEBHOOK_EVENTS,
  WEBHOOK_LIMITS,
  type Webhook,
  type WebhookEvent,
} from './model';
import { newWebhookSecret } from './signature';
import type { WebhookChanges, WebhookRow } from './store';
import { checkWebhookTarget, normalizeWebhookUrl } from './url';

type WebhookDeps = Pick<WebhookRoutesDeps, 'stores' | 'config' | 'clock'>;

/**
 * What the API answers of a webhook: everything but its secrets; `previousSecretUntil` only
 * while the replaced secret still signs (`now`, the service's clock, judges).
 */
export function toWebhook(row: WebhookRow, now: number): Webhook {
  const { secret: _secret, previousSecret: _previous, ...shown } = row;
  const until = row.previousSecretUntil;
  return { ...shown, previousSecretUntil: until !== null && until > now ? until : null, events: eventsOf(row.events) };
}

/** The events as stored: each once, in the documented order. */
function eventsOf(events: readonly string[]): WebhookEvent[] {
  return WEBHOOK_EVENTS.filter((e) => events.includes(e));
}

function description(raw: string | null | undefined): string | null {
  if (raw === undefined || raw === null) return null;
  const text = raw.trim();
  if (hasControlChars(text)) throw invalid('description', 'description must not contain control characters');
  return text === '' ? null : text;
}

async function checkedUrl(deps: WebhookDeps, raw: string): Promise<string> {
  const url = normalizeWebhookUrl(raw);
  await checkWebhookTarget(url, deps.config.webhooksAllowPrivate);
  return url;
}

async function rowOrThrow(deps: WebhookDeps, id: string): Promise<WebhookRow> {
  const row = await deps.stores.webhooks.find(id);
  if (row === null) throw notFound('webhook');
  return row;
}

export async function listWebhooks(deps: WebhookDeps): Promise<{ items: Webhook[] }> {
  const now = deps.clock.now();
  return { items: (await deps.stores.webhooks.list()).map((row) => toWebhook(row, now)) };
}

export async function getWebhook(deps: WebhookDeps, id: string): Promise<Webhook> {
  return toWebhook(await rowOrThrow(deps, id), deps.clock.now());
}

/** Creates a webhook; the answer carries its secret, the only time it is shown. */
export async function createWebhook(
  deps: WebhookDeps,
  access: Access,
  input: CreateWebhookInput,
): Promise<Webhook & { secret: string }> {
  if ((await deps.stores.webhooks.count()) >= WEBHOOK_LIMITS.webhooks)
    throw conflict('url', `A workspace has at most ${WEBHOOK_LIMITS.webhooks} webhooks`);
  const now = deps.clock.now();
  const row: WebhookRow = {
    id: newId('whk'),
    url: await checkedUrl(deps, input.url),
    description: description(input.description),
    events: eventsOf(input.events),
    bots: input.bots ?? false,
    secret: newWebhookSecret(),
    previousSecret: null,
    previousSecretUntil: null,
    active: true,
    consecutiveFailures: 0,
    failingSince: null,
    disabledReason: null,
    createdAt: now,
    updatedAt: now,
  };
  // Field names only: the secret made here is never in the audit log.
  const audit = auditEntry(access, 'webhook.create', { type: 'webhook', id: row.id }, fieldsOf(input), now);
  await deps.stores.webhooks.insert(row, audit);
  return { ...toWebhook(row, now), secret: row.secret };
}

/**
 * Changes the fields sent; `active: true` also clears the failures and the reason it was
 * disabled, and the events recorded while it was not active become due (they were kept for it).
 */
export async function updateWebhook(
  deps: WebhookDeps,
  access: Access,
  id: string,
  input: UpdateWebhookInput,
): Promise<Webhook> {
  const current = await rowOrThrow(deps, id);
  const changes: WebhookChanges = {};
  if (input.url !== undefined) changes.url = await checkedUrl(deps, input.url);
  if (input.events !== undefined) changes.events = eventsOf(input.events);
  if (input.description !== undefined) changes.description = description(input.description);
  if (input.bots !== undefined) changes.bots = input.bots;
  if (input.active !== undefined) {
    changes.active = input.active;
    changes.disabledReason = null;
    if (input.active) {
      changes.consecutiveFailures = 0;
      changes.failingSince = null;
    }
  }
  if (Object.keys(changes).length > 0) changes.updatedAt = Math.max(deps.clock.now(), current.updatedAt);
  const audit = auditEntry(access, 'webhook.update', { type: 'webhook', id }, fieldsOf(input), deps.clock.now());
  await deps.stores.webhooks.update(id, changes, audit);
  // What waited while it was not active (or for a retry) goes out now, not at its old schedule.
  if (input.active === true && !current.active) await deps.stores.outbox.resume(id, deps.clock.now());
  return toWebhook({ ...current, ...changes }, deps.clock.now());
}

/** A page of a webhook's delivery log, newest first; the cursor is the last attempt's id. */
export async function listDeliveries(
  deps: WebhookDeps,
  id: string,
  query: { limit?: number; cursor?: string },
): Promise<{ items: DeliveryAttempt[]; cursor: string | null }> {
  await rowOrThrow(deps, id);
  const limit = query.limit ?? 50;
  let before: number | null = null;
  if (query.cursor !== undefined) {
    if (!/^\d{1,15}$/.test(query.cursor)) throw invalid('cursor', 'cursor is not one this list gave');
    before = Number(query.cursor);
  }
  const rows = await deps.stores.outbox.attempts(id, limit + 1, before);
  const page = rows.slice(0, limit);
  return {
    items: page.map(({ status, type, ...rest }) => ({ ...rest, type: type as DeliveredType, statusCode: status })),
    cursor: rows.length > limit ? String(page.at(-1)!.id) : null,
  };
}

/** Makes a delivery due now, delivered already or not: the event is sent again, with the same webhook-id. */
export async function retryDelivery(
  deps: WebhookDeps & Pick<WebhookRoutesDeps, 'webhooks'>,
  id: string,
  deliveryId: string,
): Promise<{ deliveryId: number; retried: true }> {
  // Nothing is sent to a disabled webhook: saying "retried" would promise what does not happen.
  sendableOrThrow(await rowOrThrow(deps, id));
  const n = /^\d{1,15}$/.test(deliveryId) ? Number(deliveryId) : -1;
  const outcome = n < 0 ? 'missing' : await deps.stores.outbox.retryNow(id, n, deps.clock.now());
  if (outcome === 'missing') throw notFound('delivery');
  if (outcome === 'gone')
    throw conflict(
      'deliveryId',
      `A clicks event's clicks are kept ${CLICKS_KEPT_FOR_MS / 3_600_000} hour after delivery: this one's are gone`,
    );
  deps.webhooks.wake();
  return { deliveryId: n, retried: true };
}

/**
 * Gives the webhook a new secret, answered this once; the replaced one signs its deliveries too
 * (a second signature) for WEBHOOK_LIMITS.previousSecretForMs, while receivers switch over.
 */
export async function rotateWebhookSecret(
  deps: WebhookDeps,
  access: Access,
  id: string,
): Promise<Webhook & { secret: string }> {
  const now = deps.clock.now();
  // The name of what changed, never the secret itself.
  const audit = auditEntry(access, 'webhook.rotate', { type: 'webhook', id }, ['secret'], now);
  const row = await deps.stores.webhooks.rotateSecret(
    id,
    newWebhookSecret(),
    now + WEBHOOK_LIMITS.previousSecretForMs,
    now,
    audit,
  );
  if (row === null) throw notFound('webhook');
  return { ...toWebhook(row, now), secret: row.secret };
}

/** Nothing is sent to a webhook that is not active: a verb that would send says so rather than queue in silence. */
function sendableOrThrow(webhook: WebhookRow): void {
  if (!webhook.active)
    throw conflict(
      'active',
      'This webhook is disabled: nothing is sent to it until it is enabled again (PATCH {"active": true}), which delivers its pending events',
    );
}

/**
 * Sends the webhook a test event (TEST_EVENT) now, to it alone: signed and retried like any,
 * its outcome in the delivery log. 409 while it is not active.
 */
export async function sendTestEvent(
  deps: WebhookDeps & Pick<WebhookRoutesDeps, 'webhooks'>,
  id: string,
): Promise<{ deliveryId: number; eventId: string }> {
  const webhook = await rowOrThrow(deps, id);
  sendableOrThrow(webhook);
  const data = JSON.stringify({
    webhookId: webhook.id,
    message: 'A test event sent from Slink by hand: nothing happened to any link.',
  });
  const sent = await deps.stores.outbox.recordTest(webhook.id, data, deps.clock.now());
  deps.webhooks.wake();
  return sent;
}

export async function deleteWebhook(
  deps: WebhookDeps,
  access: Access,
  id: string,
): Promise<{ id: string; deleted: true }> {
  const audit = auditEntry(access, 'webhook.delete', { type: 'webhook', id }, [], deps.clock.now());
  if (!(await deps.stores.webhooks.delete(id, audit))) throw notFound('webhook');
  return { id, deleted: true };
}
