/** The webhooks store on PostgreSQL. */
import type { Pg } from '../../../db/postgres/client';
import { num, numOrNull, storable } from '../../../db/postgres/client';
import { auditCtePostgres } from '../../audit/public';
import type { WebhookChanges, WebhookRow, WebhookStore } from '../store';

interface PgWebhookRow {
  id: string;
  url: string;
  description: string | null;
  events: string;
  bots: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  active: boolean;
  consecutive_failures: number;
  failing_since: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

function toRow(r: PgWebhookRow): WebhookRow {
  return {
    id: r.id,
    url: r.url,
    description: r.description,
    events: JSON.parse(r.events),
    bots: r.bots,
    secret: r.secret,
    previousSecret: r.previous_secret,
    previousSecretUntil: numOrNull(r.previous_secret_until),
    active: r.active,
    consecutiveFailures: r.consecutive_failures,
    failingSince: numOrNull(r.failing_since),
    disabledReason: r.disabled_reason,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/** The columns of a change, by their names in the table. */
function columnsOf(changes: WebhookChanges): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (changes.url !== undefined) out.url = changes.url;
  if (changes.description !== undefined) out.description = changes.description;
  if (changes.events !== undefined) out.events = JSON.stringify(changes.events);
  if (changes.bots !== undefined) out.bots = changes.bots;
  if (changes.active !== undefined) out.active = changes.active;
  if (changes.previousSecret !== undefined) out.previous_secret = changes.previousSecret;
  if (changes.previousSecretUntil !== undefined) out.previous_secret_until = changes.previousSecretUntil;
  if (changes.consecutiveFailures !== undefined) out.consecutive_failures = changes.consecutiveFailures;
  if (changes.failingSince !== undefined) out.failing_since = changes.failingSince;
  if (changes.disabledReason !== undefined) out.disabled_reason = changes.disabledReason;
  if (changes.updatedAt !== undefined) out.updated_at = changes.updatedAt;
  return out;
}

/** Each change is one statement: its audit entry in a WITH, written only when a row changed. */
export function createPostgresWebhookStore(sql: Pg): WebhookStore {
  return {
    async list() {
      return (await sql<PgWebhookRow[]>`SELECT * FROM webhooks ORDER BY created_at, id`).map(toRow);
    },
    async find(id) {
      if (!storable(id)) return null;
      const [row] = await sql<PgWebhookRow[]>`SELECT * FROM webhooks WHERE id = ${id}`;
      return row ? toRow(row) : null;
    },
    async count() {
      const [row] = await sql<{ n: string }[]>`SELECT count(*) AS n FROM webhooks`;
      return num(row!.n);
    },
    async insert(r, audit) {
      await sql`WITH audit AS (${auditCtePostgres(sql, audit)}) INSERT INTO webhooks (id, url, description, events, bots, secret, previous_secret, previous_secret_until,
          active, consecutive_failures, failing_since, disabled_reason, created_at, updated_at)
        VALUES (${r.id}, ${r.url}, ${r.description}, ${JSON.stringify(r.events)}, ${r.bots}, ${r.secret},
          ${r.previousSecret}, ${r.previousSecretUntil}, ${r.active},
          ${r.consecutiveFailures}, ${r.failingSince}, ${r.disabledReason}, ${r.createdAt}, ${r.updatedAt})`;
    },
    async update(id, changes, audit) {
      const columns = columnsOf(changes);
      if (Object.keys(columns).length === 0) return;
      await sql`WITH changed AS (UPDATE webhooks SET ${sql(columns)} WHERE id = ${id} RETURNING id),
        audit AS (${auditCtePostgres(sql, audit, sql`EXISTS (SELECT 1 FROM changed)`)})
        SELECT 1`;
    },
    async rotateSecret(id, secret, previousUntil, at, audit) {
      if (!storable(id)) return null;
      // The SET expressions read the row as it was: previous_secret takes the replaced secret.
      const [row] = await sql<PgWebhookRow[]>`WITH rotated AS (UPDATE webhooks SET previous_secret = secret,
          secret = ${secret}, previous_secret_until = ${previousUntil}::int8,
          updated_at = greatest(updated_at, ${at}::int8)
        WHERE id = ${id} RETURNING *),
        audit AS (${auditCtePostgres(sql, audit, sql`EXISTS (SELECT 1 FROM rotated)`)})
        SELECT * FROM rotated`;
      return row ? toRow(row) : null;
    },
    async delete(id, audit) {
      if (!storable(id)) return false;
      const gone = await sql`WITH gone AS (DELETE FROM webhooks WHERE id = ${id} RETURNING id),
        audit AS (${auditCtePostgres(sql, audit, sql`EXISTS (SELECT 1 FROM gone)`)})
        SELECT id FROM gone`;
      return gone.length > 0;
    },
  };
}
