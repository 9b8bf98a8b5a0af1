/**
 * The outbox on SQLite: one process, so a claim is only a guard against its own overlapping
 * passes. Its writes never wait for the click writer's lock on the event loop (writeWhenFree).
 */
import type { Database } from 'bun:sqlite';
import { writeWhenFree } from '../../../../db/write-when-free';
import { newId, randomToken } from '../../../../lib/ids';
import { WEBHOOK_LIMITS } from '../../model';
import type { AttemptRow, DueDelivery, OutboxStore, Settlement, StoredEvent } from '../store';

const DUE_COLUMNS = `d.id, d.webhook_id AS webhookId, w.url, w.secret,
  CASE WHEN w.previous_secret_until > ?2 THEN w.previous_secret END AS previousSecret, w.bots, d.event_seq AS eventSeq, e.id AS eventId,
  e.type, e.link_id AS linkId, e.data, e.bot_data AS botData, e.at AS eventAt, d.attempts, d.first_attempt_at AS firstAttemptAt`;

/** Rows a pruning step deletes at most. */
const PRUNE_STEP = 1000;

/**
 * The webhook's side of an attempt: a success clears its failures; a failure counts one more
 * and, once the first of them is WEBHOOK_LIMITS.disableAfterMs old, disables it. Whether it is
 * still active after.
 */
function settleWebhook(sqlite: Database, webhookId: string, outcome: Settlement): boolean {
  if (outcome.delivered) {
    sqlite.query('UPDATE webhooks SET consecutive_failures = 0, failing_since = NULL WHERE id = ?').run(webhookId);
    return true;
  }
  // Every expression reads the row as it was before this update.
  const row = sqlite
    .query<{ active: number }, [number, number, string, string]>(
      `UPDATE webhooks SET consecutive_failures = consecutive_failures + 1,
         failing_since = coalesce(failing_since, ?1),
         disabled_reason = CASE WHEN active = 1 AND ?1 - coalesce(failing_since, ?1) >= ?2 THEN ?3 ELSE disabled_reason END,
         updated_at = CASE WHEN active = 1 AND ?1 - coalesce(failing_since, ?1) >= ?2 THEN max(updated_at, ?1) ELSE updated_at END,
         active = CASE WHEN ?1 - coalesce(failing_since, ?1) >= ?2 THEN 0 ELSE active END
       WHERE id = ?4 RETURNING active`,
    )
    .get(outcome.at, WEBHOOK_LIMITS.disableAfterMs, outcome.disableReason, webhookId);
  return row?.active === 1;
}

export function createSqliteOutboxStore(sqlite: Database): OutboxStore {
  const immediate = <T>(work: () => T): Promise<T> => writeWhenFree(sqlite, work);
  return {
    async since(afterSeq, limit, linkId) {
      return sqlite
        .query<StoredEvent, [number, string | null, number]>(
          `SELECT seq, id, type, link_id AS linkId, data, bot_data AS botData, at FROM webhook_events
           WHERE seq > ?1 AND type <> 'webhook.test' AND (?2 IS NULL OR link_id = ?2 OR (type = 'clicks' AND link_id IS NULL)) ORDER BY seq LIMIT ?3`,
        )
        .all(afterSeq, linkId, limit);
    },
    async bounds() {
      const row = sqlite
        .query<{ newest: number | null; oldest: number | null }, []>(
          'SELECT max(seq) AS newest, min(seq) AS oldest FROM webhook_events',
        )
        .get()!;
      return { newest: row.newest ?? 0, oldest: row.oldest };
    },
    async fillLinkData(entries) {
      const fill = sqlite.query<unknown, [string, string]>(
        "UPDATE webhook_events SET data = ? WHERE link_id = ? AND data IS NULL AND type IN ('link.created', 'link.updated')",
      );
      await immediate(() => {
        for (const { linkId, data } of entries) fill.run(data, linkId);
      });
    },
    async recordTest(webhookId, data, at) {
      const eventId = newId('evt');
      return immediate(() => {
        const { seq } = sqlite
          .query<{ seq: number }, [string, string, number]>(
            "INSERT INTO webhook_events (id, type, data, at) VALUES (?, 'webhook.test', ?, ?) RETURNING seq",
          )
          .get(eventId, data, at)!;
        const { id } = sqlite
          .query<{ id: number }, [string, number, number]>(
            'INSERT INTO webhook_deliveries (webhook_id, event_seq, next_at) VALUES (?, ?, ?) RETURNING id',
          )
          .get(webhookId, seq, at)!;
        return { deliveryId: id, eventId };
      });
    },
    async claimDue(now, limit, leaseMs) {
      // Claimed by id first, in a short write transaction; what is sent (up to ~450 KB an event)
      // read after, by id: a sort over the due rows would otherwise carry every one's data.
      const claimed = await immediate(() => {
        const ids = sqlite
          .query<{ id: number }, [number, number, number]>(
            `SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id AND w.active = 1
             WHERE d.done_at IS NULL AND d.next_at <= ? AND (d.claimed_until IS NULL OR d.claimed_until <= ?)
             ORDER BY d.next_at, d.id LIMIT ?`,
          )
          .all(now, now, limit);
        const claim = sqlite.query<unknown, [number, string, number]>(
          'UPDATE webhook_deliveries SET claimed_until = ?, claim = ? WHERE id = ?',
        );
        return new Map(
          ids.map(({ id }) => {
            const token = randomToken();
            claim.run(now + leaseMs, token, id);
            return [id, token] as const;
          }),
        );
      });
      if (claimed.size === 0) return [];
      const rows = sqlite
        .query<Omit<DueDelivery, 'claim' | 'bots'> & { bots: number }, [string, number]>(
          `SELECT ${DUE_COLUMNS} FROM webhook_deliveries d
           JOIN webhooks w ON w.id = d.webhook_id
           JOIN webhook_events e ON e.seq = d.event_seq
           WHERE d.id IN (SELECT value FROM json_each(?1)) ORDER BY d.next_at, d.id`,
        )
        .all(JSON.stringify([...claimed.keys()]), now);
      return rows.map((d) => ({ ...d, bots: d.bots === 1, claim: claimed.get(d.id)! }) as DueDelivery);
    },
    async settle(delivery, outcome) {
      return immediate(() => {
        const held = sqlite
          .query<{ attempts: number }, [number, string]>(
            'SELECT attempts FROM webhook_deliveries WHERE id = ? AND claim = ? AND done_at IS NULL',
          )
          .get(delivery.id, delivery.claim);
        if (held === null) return false;
        const attempt = held.attempts + 1;
        sqlite
          .query(
            `INSERT INTO webhook_attempts (delivery_id, webhook_id, attempt, at, status, error, duration_ms, request, response)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            delivery.id,
            delivery.webhookId,
            attempt,
            outcome.at,
            outcome.status,
            outcome.error,
            outcome.durationMs,
            outcome.request,
            outcome.response,
          );
        const active = settleWebhook(sqlite, delivery.webhookId, outcome);
        // A delivery at the end of its retries is not given up while its webhook is disabled:
        // enabling it again delivers it (docs/behaviour.md, "Webhooks").
        const done = outcome.delivered || (outcome.nextAt === null && active);
        sqlite
          .query(
            `UPDATE webhook_deliveries SET attempts = ?, first_attempt_at = coalesce(first_attempt_at, ?),
               next_at = ?, done_at = ?, delivered = ?, claimed_until = NULL, claim = NULL WHERE id = ?`,
          )
          .run(
            attempt,
            outcome.at,
            outcome.nextAt ?? outcome.at,
            done ? outcome.at : null,
            outcome.delivered ? 1 : 0,
            delivery.id,
          );
        return true;
      });
    },
    async attempts(webhookId, limit, before) {
      return sqlite
        .query<Omit<AttemptRow, 'gaveUp'> & { gaveUp: number }, [string, number, number]>(
          `SELECT a.id, a.delivery_id AS deliveryId, e.id AS eventId, e.type, a.attempt, a.at, a.status, a.error,
             a.duration_ms AS durationMs, a.request, a.response,
             CASE WHEN a.attempt = d.attempts AND d.done_at IS NULL THEN d.next_at END AS nextAttemptAt,
             (a.attempt = d.attempts AND d.done_at IS NOT NULL AND d.delivered = 0) AS gaveUp
           FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
           JOIN webhook_events e ON e.seq = d.event_seq
           WHERE a.webhook_id = ? AND a.id < ? ORDER BY a.id DESC LIMIT ?`,
        )
        .all(webhookId, before ?? Number.MAX_SAFE_INTEGER, limit)
        .map((r) => ({ ...r, gaveUp: r.gaveUp === 1 }));
    },
    async retryNow(webhookId, deliveryId, now) {
      return immediate(() => {
        const found = sqlite
          .query<{ gone: number }, [number, string]>(
            `SELECT e.type = 'clicks' AND e.data IS NULL AS gone FROM webhook_deliveries d
             JOIN webhook_events e ON e.seq = d.event_seq WHERE d.id = ? AND d.webhook_id = ?`,
          )
          .get(deliveryId, webhookId);
        if (found === null) return 'missing';
        if (found.gone === 1) return 'gone';
        sqlite
          .query(
            `UPDATE webhook_deliveries SET next_at = ?, done_at = NULL, delivered = 0, claimed_until = NULL, claim = NULL
             WHERE id = ?`,
          )
          .run(now, deliveryId);
        return 'retried';
      });
    },
    async resume(webhookId, now) {
      await immediate(() =>
        sqlite
          .query(
            `UPDATE webhook_deliveries SET next_at = min(next_at, ?1), first_attempt_at = NULL
             WHERE webhook_id = ?2 AND done_at IS NULL`,
          )
          .run(now, webhookId),
      );
    },
    async pending() {
      return sqlite
        .query<{ n: number }, []>('SELECT count(*) AS n FROM webhook_deliveries WHERE done_at IS NULL')
        .get()!.n;
    },
    async listening(node, until) {
      await immediate(() =>
        sqlite
          .query(
            'INSERT INTO event_listeners (node, until) VALUES (?1, ?2) ON CONFLICT (node) DO UPDATE SET until = ?2',
          )
          .run(node, until),
      );
    },
    async prune(before, clicksBefore) {
      // Steps of PRUNE_STEP rows, each its own short transaction: the event loop never holds
      // one long deletion (an hour of clicks events can be hundreds of MB).
      const steps = async (statement: string, until: number, rows = PRUNE_STEP) => {
        let total = 0;
        for (;;) {
          const n = await immediate(() => sqlite.query(statement).run(until, rows).changes);
          total += n;
          if (n < rows) return total;
        }
      };
      await immediate(() => sqlite.query('DELETE FROM event_listeners WHERE until < ?').run(before));
      await steps(
        'DELETE FROM webhook_attempts WHERE id IN (SELECT id FROM webhook_attempts WHERE at < ? LIMIT ?)',
        before,
      );
      await steps(
        `DELETE FROM webhook_deliveries WHERE id IN
           (SELECT id FROM webhook_deliveries WHERE done_at IS NOT NULL AND done_at < ? LIMIT ?)`,
        before,
      );
      // A disabled webhook's events wait for it as long as other events are kept, no longer.
      await steps(
        `DELETE FROM webhook_deliveries WHERE id IN
           (SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id AND w.active = 0
            JOIN webhook_events e ON e.seq = d.event_seq WHERE d.done_at IS NULL AND e.at < ? LIMIT ?)`,
        before,
      );
      // A clicks event's clicks go once nothing pending needs them (up to ~450 KB an event: few per step).
      await steps(
        `UPDATE webhook_events SET data = NULL, bot_data = NULL WHERE seq IN
           (SELECT seq FROM webhook_events e WHERE type = 'clicks' AND data IS NOT NULL AND at < ?
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_seq = e.seq AND d.done_at IS NULL) LIMIT ?)`,
        clicksBefore,
        20,
      );
      // An event goes once it is old and no delivery still needs it.
      return steps(
        `DELETE FROM webhook_events WHERE seq IN (SELECT seq FROM webhook_events e WHERE at < ?
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_seq = e.seq) LIMIT ?)`,
        before,
      );
    },
  };
}
