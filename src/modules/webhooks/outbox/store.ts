/**
 * What the sender keeps of deliveries, in its own words; one implementation per engine beside it.
 * A delivery is claimed for a while (a lease) before it is attempted, and its outcome is recorded
 * only under that claim: a process that stalled past its lease finds its outcome refused, and
 * one that died holding deliveries lets them go when the lease ends.
 */
import type { DeliveredType, WebhookEvent } from '../model';

export interface DueDelivery {
  id: number;
  webhookId: string;
  url: string;
  secret: string;
  /** The secret a rotation replaced, while it still signs (null otherwise). */
  previousSecret: string | null;
  bots: boolean;
  eventSeq: number;
  eventId: string;
  type: DeliveredType;
  linkId: string | null;
  /** The event's data as JSON, or null when a crash came between its link write and the fill. */
  data: string | null;
  /** A `clicks` event's bot hits, a JSON array of click records (null: none); not in `data`. */
  botData: string | null;
  eventAt: number;
  /** Attempts made before this one. */
  attempts: number;
  firstAttemptAt: number | null;
  /** This claim's token. */
  claim: string;
}

/** What the delivery log keeps of an attempt. */
interface AttemptFacts {
  at: number;
  status: number | null;
  error: string | null;
  durationMs: number;
  request: string;
  response: string;
}

/** An attempt and what follows from it. */
export interface Settlement extends AttemptFacts {
  delivered: boolean;
  /** When to try again; null with `delivered` false: given up. */
  nextAt: number | null;
  /**
   * A failure raises the webhook's consecutive failures and marks when it started failing; a
   * failure WEBHOOK_LIMITS.disableAfterMs or more after that disables it with this reason (and
   * a delivery to be given up then stays pending, for when it is enabled). A success resets them.
   */
  disableReason: string;
}

export interface AttemptRow extends AttemptFacts {
  id: number;
  deliveryId: number;
  eventId: string;
  type: string;
  attempt: number;
  /** On its delivery's newest attempt while the delivery waits: when it is attempted next; else null. */
  nextAttemptAt: number | null;
  /** Its delivery's last attempt, after which the delivery was given up. */
  gaveUp: boolean;
}

/** An event as the live stream reads it. */
export interface StoredEvent {
  seq: number;
  id: string;
  type: WebhookEvent;
  linkId: string | null;
  data: string | null;
  botData: string | null;
  at: number;
}

export interface OutboxStore {
  /**
   * Events after `afterSeq`, oldest first, at most `limit`; when `linkId` is given, only those
   * of that link and the `clicks` events of several links (the reader picks its link's clicks).
   */
  since(afterSeq: number, limit: number, linkId: string | null): Promise<StoredEvent[]>;
  /** The number of the newest committed event (0 when none) and of the oldest still kept (null when none). */
  bounds(): Promise<{ newest: number; oldest: number | null }>;
  /** Gives link events still without data their Link, as JSON. */
  fillLinkData(entries: readonly { linkId: string; data: string }[]): Promise<void>;
  /**
   * Records a test event (TEST_EVENT, `data` as JSON) with a delivery to this webhook alone, due
   * at `at`; live streams never see it (`since` leaves test events out).
   */
  recordTest(webhookId: string, data: string, at: number): Promise<{ deliveryId: number; eventId: string }>;
  /** Claims up to `limit` due deliveries of active webhooks, oldest first, until `now + leaseMs`. */
  claimDue(now: number, limit: number, leaseMs: number): Promise<DueDelivery[]>;
  /**
   * Records the attempt in the log and its consequence (done, or when to try again; the
   * webhook's failure count, reset or raised, and its disabling), if `delivery.claim` still holds
   * it; false when it does not (nothing recorded).
   */
  settle(delivery: DueDelivery, outcome: Settlement): Promise<boolean>;
  /** The newest attempts of a webhook, newest first, before the attempt id `before` when given. */
  attempts(webhookId: string, limit: number, before: number | null): Promise<AttemptRow[]>;
  /**
   * Makes a delivery of this webhook due now again (done or not): `missing` when there is no such
   * delivery, `gone` when it is of a `clicks` event whose clicks are no longer kept.
   */
  retryNow(webhookId: string, deliveryId: number, now: number): Promise<'retried' | 'missing' | 'gone'>;
  /**
   * A webhook enabled again: its pending deliveries (those recorded while it was not active, and
   * those waiting for a retry) are due now, each with a new 24 hours of retries.
   */
  resume(webhookId: string, now: number): Promise<void>;
  /** Deliveries not yet delivered nor given up, of active webhooks and paused ones alike (/metrics). */
  pending(): Promise<number>;
  /** This process has a live stream open: `clicks` events are recorded until `until` (ms) at least. */
  listening(node: string, until: number): Promise<void>;
  /**
   * Deletes events, done deliveries, disabled webhooks' pending deliveries and attempts older
   * than `before`, and drops the clicks of
   * `clicks` events older than `clicksBefore` that no pending delivery needs (the event stays,
   * for the delivery log), in small steps; returns the events deleted.
   */
  prune(before: number, clicksBefore: number): Promise<number>;
}
