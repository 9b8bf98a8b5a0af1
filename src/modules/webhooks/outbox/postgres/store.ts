/**
 * The outbox on PostgreSQL, shared by every node: a due delivery is claimed with
 * `FOR UPDATE SKIP LOCKED` (two nodes never claim the same one, and neither waits for the
 * other), for a lease; a node that dies holding claims lets them go when the lease ends.
 */
import type { Pg } from '../../../../db/postgres/client';
import { num, numOrNull } from '../../../../db/postgres/client';
import { EVENT_FEED_LOCK } from '../../../../db/postgres/locks';
import { newId, randomToken } from '../../../../lib/ids';
import { type DeliveredType, WEBHOOK_LIMITS, type WebhookEvent } from '../../model';
import type { AttemptRow, DueDelivery, OutboxStore } from '../store';

interface PgDue {
  id: string;
  webhook_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  bots: boolean;
  event_seq: string;
  event_id: string;
  type: DeliveredType;
  link_id: string | null;
  data: string | null;
  bot_data: string | null;
  event_at: string;
  attempts: number;
  first_attempt_at: string | null;
  claim: string;
}

export function createPostgresOutboxStore(sql: Pg): OutboxStore {
  return {
    async since(afterSeq, limit, linkId) {
      const rows = await sql<
        {
          seq: string;
          id: string;
          type: WebhookEvent;
          link_id: string | null;
          data: string | null;
          bot_data: string | null;
          at: string;
        }[]
      >`
        SELECT seq, id, type, link_id, data, bot_data, at FROM webhook_events
        WHERE seq > ${afterSeq}::int8 AND type <> 'webhook.test'
          AND (${linkId}::text IS NULL OR link_id = ${linkId}::text OR (type = 'clicks' AND link_id IS NULL))
        ORDER BY seq LIMIT ${limit}`;
      return rows.map((r) => ({
        seq: num(r.seq),
        id: r.id,
        type: r.type,
        linkId: r.link_id,
        data: r.data,
        botData: r.bot_data,
        at: num(r.at),
      }));
    },
    async bounds() {
      // Committed events only: a number taken by a transaction not committed yet is not the newest.
      const [row] = await sql<{ newest: string | null; oldest: string | null }[]>`
        SELECT max(seq) AS newest, min(seq) AS oldest FROM webhook_events`;
      return { newest: num(row!.newest ?? 0), oldest: row!.oldest === null ? null : num(row!.oldest) };
    },
    async fillLinkData(entries) {
      if (entries.length === 0) return;
      await sql`UPDATE webhook_events e SET data = f.data
        FROM unnest(${sql.array(
          entries.map((x) => x.linkId),
          'text',
        )}::text[], ${sql.array(
          entries.map((x) => x.data),
          'text',
        )}::text[]) AS f(link_id, data)
        WHERE e.link_id = f.link_id AND e.data IS NULL AND e.type IN ('link.created', 'link.updated')`;
    },
    async recordTest(webhookId, data, at) {
      const eventId = newId('evt');
      return sql.begin(async (tx) => {
        // Numbered under the event lock like every event, so numbers still commit in order.
        await tx`SELECT pg_advisory_xact_lock(${EVENT_FEED_LOCK})`;
        const [delivery] = await tx<{ id: string }[]>`
          WITH e AS (
            INSERT INTO webhook_events (seq, id, type, data, at)
            VALUES (nextval('webhook_event_seq'), ${eventId}, 'webhook.test', ${data}, ${at}::int8) RETURNING seq
          )
          INSERT INTO webhook_deliveries (webhook_id, event_seq, next_at)
          SELECT ${webhookId}, e.seq, ${at}::int8 FROM e RETURNING id`;
        return { deliveryId: num(delivery!.id), eventId };
      });
    },
    async claimDue(now, limit, leaseMs) {
      const claim = randomToken();
      const rows = await sql<PgDue[]>`
        WITH due AS (
          SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id AND w.active
          WHERE d.done_at IS NULL AND d.next_at <= ${now}::int8
            AND (d.claimed_until IS NULL OR d.claimed_until <= ${now}::int8)
          ORDER BY d.next_at, d.id LIMIT ${limit}
          FOR UPDATE OF d SKIP LOCKED
        ), claimed AS (
          UPDATE webhook_deliveries d SET claimed_until = ${now + leaseMs}::int8, claim = ${claim}
          FROM due WHERE d.id = due.id
          RETURNING d.*
        )
        SELECT c.id, c.webhook_id, w.url, w.secret,
          CASE WHEN w.previous_secret_until > ${now}::int8 THEN w.previous_secret END AS previous_secret, w.bots, c.event_seq, e.id AS event_id, e.type, e.link_id, e.data, e.bot_data,
          e.at AS event_at, c.attempts, c.first_attempt_at, c.claim
        FROM claimed c JOIN webhooks w ON w.id = c.webhook_id JOIN webhook_events e ON e.seq = c.event_seq
        ORDER BY c.next_at, c.id`;
      return rows.map(
        (r): DueDelivery => ({
          id: num(r.id),
          webhookId: r.webhook_id,
          url: r.url,
          secret: r.secret,
          previousSecret: r.previous_secret,
          bots: r.bots,
          eventSeq: num(r.event_seq),
          eventId: r.event_id,
          type: r.type,
          linkId: r.link_id,
          data: r.data,
          botData: r.bot_data,
          eventAt: num(r.event_at),
          attempts: r.attempts,
          firstAttemptAt: numOrNull(r.first_attempt_at),
          claim: r.claim,
        }),
      );
    },
    async settle(delivery, outcome) {
      return sql.begin(async (tx) => {
        const [held] = await tx<{ attempts: number }[]>`
          SELECT attempts FROM webhook_deliveries
          WHERE id = ${delivery.id} AND claim = ${delivery.claim} AND done_at IS NULL FOR UPDATE`;
        if (held === undefined) return false;
        const attempt = held.attempts + 1;
        await tx`INSERT INTO webhook_attempts (delivery_id, webhook_id, attempt, at, status, error, duration_ms, request, response)
          VALUES (${delivery.id}, ${delivery.webhookId}, ${attempt}, ${outcome.at}, ${outcome.status}, ${outcome.error},
            ${outcome.durationMs}, ${outcome.request}, ${outcome.response})`;
        let active = true;
        if (outcome.delivered)
          await tx`UPDATE webhooks SET consecutive_failures = 0, failing_since = NULL WHERE id = ${delivery.webhookId}`;
        else {
          // A failure counts one more and, once the first of them is disableAfterMs old, disables
          // the webhook; every expression reads the row as it was before this update.
          const at = outcome.at;
          const limit = WEBHOOK_LIMITS.disableAfterMs;
          const [row] = await tx<
            { active: boolean }[]
          >`UPDATE webhooks SET consecutive_failures = consecutive_failures + 1,
              failing_since = coalesce(failing_since, ${at}::int8),
              disabled_reason = CASE WHEN active AND ${at}::int8 - coalesce(failing_since, ${at}::int8) >= ${limit}::int8
                THEN ${outcome.disableReason} ELSE disabled_reason END,
              updated_at = CASE WHEN active AND ${at}::int8 - coalesce(failing_since, ${at}::int8) >= ${limit}::int8
                THEN greatest(updated_at, ${at}::int8) ELSE updated_at END,
              active = CASE WHEN ${at}::int8 - coalesce(failing_since, ${at}::int8) >= ${limit}::int8 THEN false ELSE active END
            WHERE id = ${delivery.webhookId} RETURNING active`;
          active = row?.active === true;
        }
        // A delivery at the end of its retries is not given up while its webhook is disabled:
        // enabling it again delivers it (docs/behaviour.md, "Webhooks").
        const done = outcome.delivered || (outcome.nextAt === null && active);
        await tx`UPDATE webhook_deliveries SET attempts = ${attempt},
            first_attempt_at = coalesce(first_attempt_at, ${outcome.at}::int8),
            next_at = ${outcome.nextAt ?? outcome.at}::int8, done_at = ${done ? outcome.at : null}::int8,
            delivered = ${outcome.delivered}, claimed_until = NULL, claim = NULL
          WHERE id = ${delivery.id}`;
        return true;
      });
    },
    async attempts(webhookId, limit, before) {
      const rows = await sql<Record<string, unknown>[]>`
        SELECT a.id, a.delivery_id, e.id AS event_id, e.type, a.attempt, a.at, a.status, a.error, a.duration_ms,
          a.request, a.response,
          CASE WHEN a.attempt = d.attempts AND d.done_at IS NULL THEN d.next_at END AS next_attempt_at,
          (a.attempt = d.attempts AND d.done_at IS NOT NULL AND NOT d.delivered) AS gave_up
        FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
        JOIN webhook_events e ON e.seq = d.event_seq
        WHERE a.webhook_id = ${webhookId} AND a.id < ${before ?? Number.MAX_SAFE_INTEGER}::int8
        ORDER BY a.id DESC LIMIT ${limit}`;
      return rows.map(
        (r): AttemptRow => ({
          id: num(r.id as string),
          deliveryId: num(r.delivery_id as string),
          eventId: r.event_id as string,
          type: r.type as string,
          attempt: r.attempt as number,
          at: num(r.at as string),
          status: r.status as number | null,
          error: r.error as string | null,
          durationMs: r.duration_ms as number,
          request: r.request as string,
          response: r.response as string,
          nextAttemptAt: numOrNull(r.next_attempt_at as string | null),
          gaveUp: r.gave_up === true,
        }),
      );
    },
    async retryNow(webhookId, deliveryId, now) {
      const [found] = await sql<{ gone: boolean }[]>`
        SELECT e.type = 'clicks' AND e.data IS NULL AS gone FROM webhook_deliveries d
        JOIN webhook_events e ON e.seq = d.event_seq WHERE d.id = ${deliveryId}::int8 AND d.webhook_id = ${webhookId}`;
      if (found === undefined) return 'missing';
      if (found.gone) return 'gone';
      await sql`UPDATE webhook_deliveries
        SET next_at = ${now}::int8, done_at = NULL, delivered = false, claimed_until = NULL, claim = NULL
        WHERE id = ${deliveryId}::int8`;
      return 'retried';
    },
    async resume(webhookId, now) {
      await sql`UPDATE webhook_deliveries SET next_at = least(next_at, ${now}::int8), first_attempt_at = NULL
        WHERE webhook_id = ${webhookId} AND done_at IS NULL`;
    },
    async pending() {
      const [row] = await sql<{ n: string }[]>`SELECT count(*) AS n FROM webhook_deliveries WHERE done_at IS NULL`;
      return num(row!.n);
    },
    async listening(node, until) {
      await sql`INSERT INTO event_listeners (node, until) VALUES (${node}, ${until}::int8)
        ON CONFLICT (node) DO UPDATE SET until = excluded.until`;
    },
    async prune(before, clicksBefore) {
      await sql`DELETE FROM event_listeners WHERE until < ${before}::int8`;
      await sql`DELETE FROM webhook_attempts WHERE at < ${before}::int8`;
      await sql`DELETE FROM webhook_deliveries WHERE done_at IS NOT NULL AND done_at < ${before}::int8`;
      // A disabled webhook's events wait for it as long as other events are kept, no longer.
      await sql`DELETE FROM webhook_deliveries d USING webhooks w, webhook_events e
        WHERE w.id = d.webhook_id AND NOT w.active AND e.seq = d.event_seq AND d.done_at IS NULL
          AND e.at < ${before}::int8`;
      // A clicks event's clicks go once nothing pending needs them; the event stays for the log.
      await sql`UPDATE webhook_events e SET data = NULL, bot_data = NULL
        WHERE e.type = 'clicks' AND e.data IS NOT NULL AND e.at < ${clicksBefore}::int8
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_seq = e.seq AND d.done_at IS NULL)`;
      const gone = await sql`DELETE FROM webhook_events e WHERE e.at < ${before}::int8
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_seq = e.seq) RETURNING seq`;
      return gone.length;
    },
  };
}
