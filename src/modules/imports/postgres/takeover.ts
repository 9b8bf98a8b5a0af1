/**
 * Another node's takeover of a crashed import, on PostgreSQL (imports/takeover.ts runs it). A
 * node is live while it holds its session advisory lock (IMPORT_NODE_LOCK_CLASS, its instance's
 * hashtext) on a connection of its own: pg_locks says who holds one without taking it, and a
 * dead node's row and the copies sealed to it are dropped. The secret of a run is kept sealed
 * to the live nodes (import_run_keys), and a file's bytes (import_run_files), only while the
 * run lives: endRun drops them in the transaction that ends it.
 */
import { type Pg, storable } from '../../../db/postgres/client';
import { IMPORT_LOCK_CLASS, IMPORT_NODE_LOCK_CLASS } from '../../../db/postgres/locks';
import type { TakeoverStore } from '../store';
import { claimOn, type Reserved, toRun } from './runs';

/** Bytes of a file per row. */
const FILE_CHUNK = 1 << 20;

/** Whether the node of `instance` (an SQL expression) holds its lock: read from pg_locks, never taken. */
const held = (sql: Pg, instance: ReturnType<Pg['unsafe']>) => sql`EXISTS (SELECT 1 FROM pg_locks l
  WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND l.classid::int8 = ${IMPORT_NODE_LOCK_CLASS}::int8
    AND l.objid::int8 = (hashtext(${instance})::int8 & 4294967295))`;

/** Whether a live node holds a copy of the secret of the run `import_runs.id` (in a WHERE on import_runs). */
export const LIVE_COPY = (sql: Pg) => sql`EXISTS (SELECT 1 FROM import_run_keys k
  JOIN import_nodes n ON n.instance = k.instance
  WHERE k.run_id = import_runs.id AND ${held(sql, sql.unsafe('n.instance'))})`;

/** What a run keeps only while it lives: in the transaction that ends it. */
export async function endRun(tx: Pg, runId: string): Promise<void> {
  await tx`DELETE FROM import_run_keys WHERE run_id = ${runId}`;
  await tx`DELETE FROM import_run_files WHERE run_id = ${runId}`;
}

export function createPostgresTakeoverStore(sql: Pg): TakeoverStore {
  return {
    async publish(node) {
      const conn = await sql.reserve();
      try {
        await conn`SELECT pg_advisory_lock(${IMPORT_NODE_LOCK_CLASS}, hashtext(${node.instance}))`;
        // After the lock: a row whose lock nobody holds is always a dead node's.
        await conn`INSERT INTO import_nodes (instance, node, public_key, started_at)
          VALUES (${node.instance}, ${node.node}, ${node.publicKey}, ${node.startedAt})
          ON CONFLICT (instance) DO UPDATE SET public_key = excluded.public_key`;
      } catch (err) {
        conn.release();
        throw err;
      }
      let closed = false;
      return {
        async close() {
          if (closed) return;
          closed = true;
          try {
            await conn`DELETE FROM import_nodes WHERE instance = ${node.instance}`;
            await conn`SELECT pg_advisory_unlock(${IMPORT_NODE_LOCK_CLASS}, hashtext(${node.instance}))`;
          } finally {
            conn.release();
          }
        },
      };
    },
    async holds(instance) {
      const [row] = await sql`SELECT ${held(sql, sql`${instance}::text`)} AS held`;
      return row?.held === true;
    },
    async liveNodes() {
      // Each its own short statement: nodes dropping the same dead rows at once hold no locks across them.
      await sql`DELETE FROM import_nodes n WHERE NOT ${held(sql, sql.unsafe('n.instance'))}`;
      await sql`DELETE FROM import_run_keys k WHERE NOT EXISTS (SELECT 1 FROM import_nodes n WHERE n.instance = k.instance)`;
      const rows =
        await sql`SELECT instance, public_key FROM import_nodes n WHERE ${held(sql, sql.unsafe('n.instance'))}
        ORDER BY instance`;
      return rows.map((r: Record<string, unknown>) => ({
        instance: r.instance as string,
        publicKey: r.public_key as string,
      }));
    },
    async sealedTo(runId) {
      const rows = await sql`SELECT instance FROM import_run_keys WHERE run_id = ${runId}`;
      return new Set(rows.map((r: Record<string, unknown>) => r.instance as string));
    },
    async putSealed(runId, copies) {
      if (copies.length === 0) return;
      // Only while the run runs: a copy written as it ends would outlive it.
      await sql`INSERT INTO import_run_keys (run_id, instance, sealed)
        SELECT ${runId}, c.instance, c.sealed
        FROM unnest(${sql.array(
          copies.map((c) => c.instance),
          'text',
        )}::text[], ${sql.array(
          copies.map((c) => c.sealed),
          'text',
        )}::text[]) AS c(instance, sealed)
        WHERE EXISTS (SELECT 1 FROM import_runs WHERE id = ${runId} AND status = 'running')
        ON CONFLICT (run_id, instance) DO UPDATE SET sealed = excluded.sealed`;
    },
    async keeping() {
      const rows = await sql`SELECT * FROM import_runs WHERE status = 'running' AND id IN
        (SELECT run_id FROM import_run_keys UNION SELECT run_id FROM import_run_files)`;
      return rows.map(toRun);
    },
    async sealedFor(instance) {
      const rows = await sql`SELECT r.*, k.sealed AS sealed_copy FROM import_runs r
        JOIN import_run_keys k ON k.run_id = r.id
        WHERE k.instance = ${instance} AND r.status = 'running' ORDER BY r.started_at, r.id`;
      return rows.map((r: Record<string, unknown>) => ({ run: toRun(r), sealed: r.sealed_copy as string }));
    },
    async takeOver(runId, owner) {
      if (!storable(runId)) return null;
      const conn: Reserved = await sql.reserve();
      try {
        const [found] = await conn`SELECT identity FROM import_runs WHERE id = ${runId} AND status = 'running'`;
        if (!found) {
          conn.release();
          return null;
        }
        const identity = found.identity as string;
        const [lock] = await conn`SELECT pg_try_advisory_lock(${IMPORT_LOCK_CLASS}, hashtext(${identity})) AS taken`;
        if (!lock!.taken) {
          conn.release();
          return null;
        }
        const claim = claimOn(conn, identity);
        // Read again under the lock: it may have ended just before its node let the lock go.
        const [row] = await conn`UPDATE import_runs SET node = ${owner.node}, pid = ${owner.pid},
            instance = ${owner.instance}
          WHERE id = ${runId} AND status = 'running' RETURNING *`;
        if (!row) {
          await claim.release();
          return null;
        }
        return { run: toRun(row), claim };
      } catch (err) {
        conn.release();
        throw err;
      }
    },
    async putFile(runId, file) {
      let seq = 0;
      let parts: Uint8Array[] = [];
      let size = 0;
      const flush = async () => {
        if (size === 0) return;
        await sql`INSERT INTO import_run_files (run_id, seq, bytes) VALUES (${runId}, ${seq++}, ${Buffer.concat(parts)})`;
        parts = [];
        size = 0;
      };
      for await (const chunk of file) {
        parts.push(chunk);
        size += chunk.length;
        if (size >= FILE_CHUNK) await flush();
      }
      await flush();
    },
    file(runId) {
      let seq = 0;
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          const [row] = await sql`SELECT bytes FROM import_run_files WHERE run_id = ${runId} AND seq = ${seq}`;
          if (!row) {
            controller.close();
            return;
          }
          seq++;
          controller.enqueue(new Uint8Array(row.bytes as Uint8Array));
        },
      });
    },
  };
}
