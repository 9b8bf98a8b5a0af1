/** The webhooks calls of /api/v1 the dashboard makes: the list, changes, a secret's rotation, a test event and the delivery log. */
import { api, withQuery } from './client';
import type { DeliveryAttempt, Page, Webhook, WebhookEvent } from './types';

const V1 = '/api/v1/webhooks';
const enc = encodeURIComponent;

export const DELIVERIES_PAGE_SIZE = 20;

export interface WebhookFields {
  url?: string;
  events?: WebhookEvent[];
  description?: string | null;
  bots?: boolean;
  active?: boolean;
}

export const listWebhooks = () => api.get<{ items: Webhook[] }>(V1);
export const createWebhook = (fields: WebhookFields) => api.post<Webhook & { secret: string }>(V1, fields);
export const updateWebhook = (id: string, fields: WebhookFields) => api.patch<Webhook>(`${V1}/${enc(id)}`, fields);
export const deleteWebhook = (id: string) => api.del(`${V1}/${enc(id)}`);
export const listDeliveries = (id: string, cursor: string | null) =>
  api.get<Page<DeliveryAttempt>>(withQuery(`${V1}/${enc(id)}/deliveries`, { limit: DELIVERIES_PAGE_SIZE, cursor }));
export const retryDelivery = (id: string, deliveryId: number) =>
  api.post<{ deliveryId: number; retried: true }>(`${V1}/${enc(id)}/deliveries/${deliveryId}/retry`);
export const rotateWebhookSecret = (id: string) =>
  api.post<Webhook & { secret: string }>(`${V1}/${enc(id)}/rotate-secret`);
export const sendTestEvent = (id: string) => api.post<{ deliveryId: number; eventId: string }>(`${V1}/${enc(id)}/test`);
export const getWebhook = (id: string) => api.get<Webhook>(`${V1}/${enc(id)}`);
