/**
 * The change feed on PostgreSQL (links/changes.ts): a `link_changes` row per link-writing
 * transaction, numbered under CHANGE_FEED_LOCK (held to the commit, so numbers commit in order),
 * and a NOTIFY on `slink_link_changes` that PostgreSQL delivers at the commit. A notification
 * only wakes the followers: what changed is read from the table, so one lost while a node's
 * listening connection was down is found by the next poll (redirect/link-follower.ts).
 */
import type { Pg } from '../../../db/postgres/client';
import { num } from '../../../db/postgres/client';
import { CHANGE_FEED_LOCK, HOUSEKEEPING_LOCK, tryTransactionLock } from '../../../db/postgres/locks';
import type { ChangesSince, LinkChangeFeed } from '../changes';

const CHANNEL = 'slink_link_changes';

/**
 * Announces, inside the writing transaction `tx`, that these links' redirect facts changed. Last
 * in the transaction: the lock it takes is held to the commit, and link writes wait for each
 * other only for that instant.
 */
export async function announceLinkChanges(tx: Pg, instance: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx`WITH locked AS (SELECT pg_advisory_xact_lock(${CHANGE_FEED_LOCK}))
    INSERT INTO link_changes (seq, instance, ids, at)
    SELECT nextval('link_change_seq'), ${instance}, ${tx.array([...new Set(ids)], 'text')}::text[],
      (extract(epoch FROM clock_timestamp()) * 1000)::int8
    FROM locked`;
  await tx`SELECT pg_notify(${CHANNEL}, '')`;
}

export function createPostgresLinkChangeFeed(sql: Pg, instance: string): LinkChangeFeed {
  return {
    async head() {
      const [row] = await sql`SELECT coalesce(max(seq), 0) AS seq,
        (SELECT seq FROM link_changes_pruned) AS pruned FROM link_changes`;
      return Math.max(num(row!.seq), num(row!.pruned));
    },
    async since(seq, limit): Promise<ChangesSince> {
      const rows = await sql<{ seq: string; ids: string[] | null; pruned: string }[]>`
        SELECT c.seq, CASE WHEN c.instance = ${instance} THEN NULL ELSE c.ids END AS ids, p.seq AS pruned
        FROM link_changes_pruned p LEFT JOIN LATERAL (
          SELECT seq, instance, ids FROM link_changes WHERE seq > ${seq}::int8 ORDER BY seq LIMIT ${limit}
        ) c ON true`;
      const pruned = num(rows[0]?.pruned ?? 0);
      return {
        gap: pruned > seq,
        changes: rows.filter((r) => r.seq !== null).map((r) => ({ seq: num(r.seq), ids: r.ids ?? [] })),
      };
    },
    async listen(wake) {
      // Woken again each time the listening connection is back: what was announced while it
      // was down is read then.
      const subscription = await sql.listen(
        CHANNEL,
        () => wake(),
        () => wake(),
      );
      return async () => {
        await subscription.unlisten();
      };
    },
    async prune(keptMs) {
      // The newest change stays, so `head` never goes back; the pruned mark says up to where
      // changes are gone, in the same transaction as their deletion.
      return sql.begin(async (tx) => {
        // One node prunes for all; the others skip their turn meanwhile.
        if (!(await tryTransactionLock(tx, HOUSEKEEPING_LOCK))) return 0;
        const gone = await tx<{ seq: string }[]>`DELETE FROM link_changes
          WHERE at < (extract(epoch FROM clock_timestamp()) * 1000)::int8 - ${keptMs}::int8
            AND seq < (SELECT max(seq) FROM link_changes)
          RETURNING seq`;
        if (gone.length === 0) return 0;
        const top = Math.max(...gone.map((r) => num(r.seq)));
        await tx`UPDATE link_changes_pruned SET seq = greatest(seq, ${top}::int8)`;
        return gone.length;
      });
    },
  };
}
