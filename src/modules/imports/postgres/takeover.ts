/**
 * Another node's takeover of a crashed import, on PostgreSQL (imports/takeover.ts runs it). A
 * node is live while it holds its session advisory lock (IMPORT_NODE_LOCK_CLASS, its instance's
 * hashtext) on a connection of its own: pg_locks says who holds one without taking it, and a
 * dead node's row and the copies sealed to it are dropped. The secret of a run is kept sealed
 * to the live nodes (import_run_keys), and a file's bytes (import_run_files), only while the
 * run lives: endRun drops them in the transaction that ends it.
 *
 * A node holding a copy waits on the run's source lock (waitOver): PostgreSQL grants it the
 * instant the running node's session ends, killed or handing over, so the run goes on at once
 * rather than at the next look. A sealing NOTIFYs the nodes, so they begin to wait at once too.
 */
import { type Pg, storable } from '../../../db/postgres/client';
import { IMPORT_LOCK_CLASS, IMPORT_NODE_LOCK_CLASS } from '../../../db/postgres/locks';
import type { ImportRunRow, RunClaim, TakeoverStore } from '../store';
import { claimOn, type Reserved, toRun } from './runs';

/** Bytes of a file per row. */
const FILE_CHUNK = 1 << 20;

/** Where a sealing says that a node may have a new copy to wait on. */
const SEALED_CHANNEL = 'slink_import_sealed';

/**
 * How long one wait on a run's lock lasts before it is asked again. A waiting statement keeps
 * its snapshot (pg_stat_activity.backend_xmin) for as long as it waits, and that holds back
 * what VACUUM may remove in every table: one wait of a whole run (hours of click writes)
 * would bloat them. Asked again every 10 s, the horizon moves on; a grant is never missed (a
 * lock let go between two asks is free, and the next ask takes it at once).
 */
const WAIT_SLICE_MS = 10_000;

/** A lock wait that ran out its lock_timeout (SQLSTATE 55P03). */
function timedOut(err: unknown): boolean {
  const e = err as { errno?: string; code?: string };
  return e.errno === '55P03' || e.code === '55P03';
}

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

/** The identity of a run still running (its source lock's key), or null. */
async function runningIdentity(conn: Reserved, runId: string): Promise<string | null> {
  const [found] = await conn`SELECT identity FROM import_runs WHERE id = ${runId} AND status = 'running'`;
  return found ? (found.identity as string) : null;
}

/**
 * Waits on `conn` for the source lock of `identity`, a slice at a time, until it is granted
 * (true) or `signal` aborts the wait (false; the statement waiting is cancelled at once). After
 * an abort the connection is not to be used again (waitOver closes it): the server's answer to
 * the cancel may come after the wait's own, and would then fail the next statement sent on it.
 */
async function waitLock(conn: Reserved, identity: string, signal: AbortSignal): Promise<boolean> {
  let asking: { cancel(): Promise<unknown> } | null = null;
  // What cancel() answers rejects as the wait does: handled here (the wait's own rejection is
  // met where it is awaited), else it is unhandled and ends the process as it stops.
  const cancel = () => void asking?.cancel().catch(() => {});
  signal.addEventListener('abort', cancel);
  await conn.unsafe(`SET lock_timeout = '${WAIT_SLICE_MS}ms'`);
  try {
    while (!signal.aborted) {
      const ask = conn`SELECT pg_advisory_lock(${IMPORT_LOCK_CLASS}, hashtext(${identity}))`;
      asking = ask;
      try {
        await ask;
        return true;
      } catch (err) {
        // A slice ran out (asked again), or the abort cancelled the wait.
        if (!timedOut(err) && !signal.aborted) throw err;
      } finally {
        asking = null;
      }
    }
    return false;
  } finally {
    signal.removeEventListener('abort', cancel);
    if (!signal.aborted) await conn`RESET lock_timeout`;
  }
}

/**
 * Under the source lock taken on `conn`, the run recorded as the owner's when it still runs
 * (it may have ended just before its node let the lock go): its claim, or null (let go).
 */
async function claimRun(
  conn: Reserved,
  runId: string,
  identity: string,
  owner: { node: string; pid: number; instance: string },
): Promise<{ run: ImportRunRow; claim: RunClaim } | null> {
  const claim = claimOn(conn, identity);
  const [row] = await conn`UPDATE import_runs SET node = ${owner.node}, pid = ${owner.pid},
      instance = ${owner.instance}
    WHERE id = ${runId} AND status = 'running' RETURNING *`;
  if (!row) {
    await claim.release();
    return null;
  }
  return { run: toRun(row), claim };
}

/** A connection given back after a failure, without the source lock it may hold. */
async function letGo(conn: Reserved, identity: string | null): Promise<void> {
  if (identity !== null)
    await conn`SELECT pg_advisory_unlock(${IMPORT_LOCK_CLASS}, hashtext(${identity}))`.catch(() => {});
  conn.release();
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
      // The nodes given a copy begin to wait on the run now, not at their next look.
      await sql`SELECT pg_notify(${SEALED_CHANNEL}, '')`;
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
      let identity: string | null = null;
      try {
        identity = await runningIdentity(conn, runId);
        const [lock] =
          identity === null
            ? [{ taken: false }]
            : await conn`SELECT pg_try_advisory_lock(${IMPORT_LOCK_CLASS}, hashtext(${identity})) AS taken`;
        if (!lock!.taken) {
          conn.release();
          return null;
        }
        return await claimRun(conn, runId, identity!, owner);
      } catch (err) {
        await letGo(conn, identity);
        throw err;
      }
    },
    async waitOver(runId, owner, signal) {
      if (!storable(runId)) return null;
      const conn: Reserved = await sql.reserve();
      let identity: string | null = null;
      try {
        identity = await runningIdentity(conn, runId);
        if (identity === null) {
          conn.release();
          return null;
        }
        // Aborted (this node stops): the connection closed, not given back, and with it its
        // session ends on the server, so a grant that came with the abort is let go too.
        if (!(await waitLock(conn, identity, signal)) || signal.aborted) {
          await conn.close();
          return null;
        }
        return await claimRun(conn, runId, identity, owner);
      } catch (err) {
        if (signal.aborted) {
          await conn.close().catch(() => {});
          return null;
        }
        await letGo(conn, identity);
        throw err;
      }
    },
    async listenSealed(wake) {
      // Woken again each time the listening connection is back: a sealing missed meanwhile.
      const subscription = await sql.listen(
        SEALED_CHANNEL,
        () => wake(),
        () => wake(),
      );
      return () => subscription.unlisten();
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
