/**
 * SLINK_RETENTION_DAYS on PostgreSQL: raw clicks older than the retained window (retention.ts)
 * are deleted by the click writer a small step at a time, after a batch, as on SQLite
 * (sqlite/retention.ts); rollups and counters are never pruned. Every batch counts itself in its
 * own transaction here, so there is no fold watermark to respect: any old tail row may go.
 *
 * Only the tail is pruned: nothing seals clicks into click_blocks on PostgreSQL yet. A sealer
 * will add "delete a whole old segment" here, as sqlite/retention.ts does. Targets stay, as on
 * SQLite.
 */
import type { Pg } from '../../../db/postgres/client';
import { type PruneStep, TAIL_PRUNE_ROWS } from '../sqlite/retention';

/**
 * Deletes up to TAIL_PRUNE_ROWS tail rows older than `cutoff`, in one short statement. Rows
 * another writer (another node) is deleting are skipped, not waited for.
 */
export async function pruneStepPg(sql: Pg, cutoff: number): Promise<PruneStep> {
  const deleted = await sql`DELETE FROM click_tail WHERE ctid = ANY (ARRAY(
      SELECT ctid FROM click_tail WHERE time < ${cutoff}::int8 LIMIT ${TAIL_PRUNE_ROWS} FOR UPDATE SKIP LOCKED))
    RETURNING 1`;
  return deleted.length > 0 ? { kind: 'tail', clicks: deleted.length } : { kind: 'none' };
}
