/**
 * SLINK_RETENTION_DAYS on PostgreSQL: raw clicks older than the retained window (retention.ts)
 * are deleted by the click writer a small step at a time, after a batch, as on SQLite
 * (sqlite/retention.ts); rollups and counters are never pruned. Every batch counts itself in its
 * own transaction here, so there is no fold watermark to respect: any old click may go.
 *
 * A step deletes one whole segment whose newest click is older than the cutoff (its blocks and
 * its row), else up to TAIL_PRUNE_ROWS tail rows older than the cutoff. The seal watermark lives
 * in click_state (postgres/seal.ts), so every such segment's row goes, the newest too. Targets
 * stay, as on SQLite.
 *
 * With several nodes one step runs at a time (HOUSEKEEPING_LOCK, tried): the node whose batch
 * comes next takes the next step, so a node that dies leaves the work to the others.
 */
import type { Pg } from '../../../db/postgres/client';
import { HOUSEKEEPING_LOCK, tryTransactionLock } from '../../../db/postgres/locks';
import { type PruneStep, TAIL_PRUNE_ROWS } from '../retention';

/**
 * Deletes one step of raw clicks older than `cutoff`: a segment in one transaction, or tail
 * rows in one statement. A segment or rows another writer (another node) is deleting are
 * skipped, not waited for.
 */
export async function pruneStepPg(sql: Pg, cutoff: number): Promise<PruneStep> {
  return sql.begin(async (tx) => {
    // One node at a time: another node's step in flight makes this one skip its turn.
    if (!(await tryTransactionLock(tx, HOUSEKEEPING_LOCK))) return { kind: 'none' };
    const [seg] = await tx`SELECT seg, count FROM click_segments WHERE max_time < ${cutoff}::int8
      ORDER BY seg LIMIT 1 FOR UPDATE SKIP LOCKED`;
    if (seg !== undefined) {
      // Blocks are keyed (link, seg): the segment's blocks are found link by link, each link's
      // first found by skipping through the key (a loose index scan), not by reading every block.
      await tx`WITH RECURSIVE held AS (
          SELECT min(link) AS link FROM click_blocks
          UNION ALL
          SELECT (SELECT min(b.link) FROM click_blocks b WHERE b.link > h.link) FROM held h WHERE h.link IS NOT NULL
        )
        DELETE FROM click_blocks WHERE (link, seg) IN (SELECT link, ${seg.seg}::int8 FROM held WHERE link IS NOT NULL)`;
      await tx`DELETE FROM click_segments WHERE seg = ${seg.seg}`;
      return { kind: 'segment', clicks: Number(seg.count) };
    }
    const deleted = await tx`DELETE FROM click_tail WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM click_tail WHERE time < ${cutoff}::int8 LIMIT ${TAIL_PRUNE_ROWS} FOR UPDATE SKIP LOCKED))
      RETURNING 1`;
    return deleted.length > 0 ? { kind: 'tail', clicks: deleted.length } : { kind: 'none' };
  });
}
