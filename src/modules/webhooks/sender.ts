/**
 * The sender: delivers the outbox's due deliveries (docs/behaviour.md, "Webhooks"). Every
 * process runs one; with several nodes each delivery is claimed by one node at a time
 * (outbox/postgres/store.ts). A pass claims what is due, up to the deliveries allowed in flight,
 * attempts each (deliver.ts) and records its outcome: delivered, tried again later by the
 * schedule (retry.ts), or given up after 24 hours; a webhook failing for 24 hours without a
 * single success is disabled (its events still recorded, for when it is enabled again). A slow or failing receiver holds one of the slots for at most the
 * delivery timeout, and nothing of the redirect path waits for any of it.
 */

import { DELIVERY_TIMEOUT_MS, deliver } from './deliver';
import type { WebhooksDeps } from './deps';
import { CLICKS_KEPT_FOR_MS, WEBHOOK_LIMITS } from './model';
import { clicksFor } from './outbox/click-events';
import { eventData } from './outbox/data';
import { eventBody } from './outbox/events';
import type { DueDelivery } from './outbox/store';
import { nextAttemptAt } from './retry';

/** Deliveries in flight at once, per process. */
const IN_FLIGHT = 16;
/** A claim outlives the longest attempt, with room for recording its outcome. */
export const LEASE_MS = DELIVERY_TIMEOUT_MS + 20_000;
/** How often the outbox is looked at when nothing woke the sender. */
const POLL_MS = 1000;
/** The part of a request the delivery log keeps. */
const KEPT_REQUEST_BYTES = 4096;
/** How long delivered events, done deliveries and the delivery log are kept. */
export const KEPT_FOR_MS = 7 * 24 * 3_600_000;
/** How often a process prunes them (any process may: a pruning is idempotent). */
const PRUNE_EVERY_MS = 5 * 60_000;

type SenderDeps = WebhooksDeps;

export interface SenderOptions {
  /** The retry schedule's jitter (default Math.random). */
  random?: () => number;
  /**
   * How long a claim lasts (default LEASE_MS): tests that kill a process mid-attempt shorten it
   * rather than wait the production 30 s for another process to take the claims over.
   */
  leaseMs?: number;
}

export class WebhookSender {
  /** Attempts this process made, by outcome (/metrics). */
  readonly stats = { delivered: 0, failed: 0 };
  private readonly inFlight = new Set<Promise<void>>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private passing: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private prunedAt = Number.NEGATIVE_INFINITY;

  private readonly random: () => number;
  private readonly leaseMs: number;

  constructor(
    private readonly deps: SenderDeps,
    options: SenderOptions = {},
  ) {
    this.random = options.random ?? Math.random;
    this.leaseMs = options.leaseMs ?? LEASE_MS;
  }

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Looks at the outbox soon (after a write that recorded events); a pass under way runs again after. */
  wake(): void {
    if (this.stopped) return;
    if (this.passing !== null) {
      this.again = true;
      return;
    }
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.pass(), 0);
  }

  /** One pass: claims what is due (room allowing) and starts each attempt; resolves once they are started. */
  pass(): Promise<void> {
    if (this.passing !== null) return this.passing;
    this.passing = (async () => {
      try {
        await this.pruneIfDue();
        const room = IN_FLIGHT - this.inFlight.size;
        if (room > 0) {
          const due = await this.deps.stores.outbox.claimDue(this.deps.clock.now(), room, this.leaseMs);
          for (const delivery of due) this.track(this.attempt(delivery));
        }
      } catch (err) {
        this.deps.log.error('webhooks: the outbox could not be read', err);
      } finally {
        this.passing = null;
        this.schedule();
      }
    })();
    return this.passing;
  }

  /** Every attempt started so far has been recorded (tests; the stop). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  /** Stops passing and waits for the attempts in flight (each ends within the delivery timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.passing;
    await this.settled();
  }

  /** Deletes what is older than KEPT_FOR_MS, once an hour. */
  private async pruneIfDue(): Promise<void> {
    const now = this.deps.clock.now();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    await this.deps.stores.outbox.prune(now - KEPT_FOR_MS, now - CLICKS_KEPT_FOR_MS);
  }

  private schedule(): void {
    if (this.stopped) return;
    const delay = this.again ? 0 : POLL_MS;
    this.again = false;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.pass(), delay);
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => {
      this.inFlight.delete(work);
      // A slot is free: what waited for one need not wait for the next poll.
      this.wake();
    });
  }

  private async attempt(delivery: DueDelivery): Promise<void> {
    const { clock, config, stores, log } = this.deps;
    try {
      const stored = await eventData(this.deps, delivery);
      // Bot hits only for a webhook that takes them (an event of bot hits only made it no delivery).
      const data =
        delivery.type === 'clicks'
          ? (clicksFor({ data: stored, botData: delivery.botData }, { bots: delivery.bots, linkId: null }) ??
            '{"clicks":[]}')
          : stored;
      const body = eventBody({ id: delivery.eventId, type: delivery.type, at: delivery.eventAt }, data);
      const startedAt = clock.now();
      const outcome = await deliver({
        url: delivery.url,
        secret: delivery.secret,
        previousSecret: delivery.previousSecret,
        eventId: delivery.eventId,
        body,
        timestamp: Math.floor(startedAt / 1000),
        allowPrivate: config.webhooksAllowPrivate,
      });
      const attempts = delivery.attempts + 1;
      const firstAt = delivery.firstAttemptAt ?? startedAt;
      const recorded = await stores.outbox.settle(delivery, {
        at: startedAt,
        status: outcome.status,
        error: outcome.error,
        durationMs: outcome.durationMs,
        request: body.slice(0, KEPT_REQUEST_BYTES),
        response: outcome.response,
        delivered: outcome.ok,
        nextAt: outcome.ok ? null : nextAttemptAt(attempts, firstAt, clock.now(), this.random),
        disableReason: `failed for ${WEBHOOK_LIMITS.disableAfterMs / 3_600_000} hours without a success; the last: ${outcome.error ?? 'failed'}`,
      });
      if (outcome.ok) this.stats.delivered++;
      else this.stats.failed++;
      if (!recorded) log.info(`webhooks: delivery ${delivery.id} was claimed again before its outcome was recorded`);
    } catch (err) {
      log.error(`webhooks: delivery ${delivery.id} of ${delivery.webhookId} failed unexpectedly`, err);
    }
  }
}
