/** What the webhooks module keeps, in its own words; one implementation per engine beside it. */
import type { Audited } from '../audit/public';
import type { WebhookRow } from './table';

export type { WebhookRow };

export type WebhookChanges = Partial<Omit<WebhookRow, 'id' | 'secret' | 'createdAt'>>;

export interface WebhookStore {
  /** Every webhook, oldest first. */
  list(): Promise<WebhookRow[]>;
  find(id: string): Promise<WebhookRow | null>;
  count(): Promise<number>;
  /** Each change writes its `audit` entry (never a secret) in its own transaction, only when a row changed. */
  insert(row: WebhookRow, audit?: Audited): Promise<void>;
  update(id: string, changes: WebhookChanges, audit?: Audited): Promise<void>;
  /**
   * Replaces the secret with `secret`, the replaced one kept as the previous secret (signing
   * too) until `previousUntil`; the row after, or null when there is no such webhook.
   */
  rotateSecret(
    id: string,
    secret: string,
    previousUntil: number,
    at: number,
    audit?: Audited,
  ): Promise<WebhookRow | null>;
  /** Whether it existed. Its pending deliveries go with it. */
  delete(id: string, audit?: Audited): Promise<boolean>;
}
