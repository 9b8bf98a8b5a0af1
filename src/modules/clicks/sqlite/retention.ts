/**
 * SLINK_RETENTION_DAYS: raw clicks older than the retained window are deleted by the click
 * writer, one small step at a time (after a batch or a fold), so a prune never holds the write
 * lock for long. Only raw clicks go: the rollups and the link and variant counters are never
 * pruned, so statistics and counts keep every click.
 *
 * A step deletes either one whole segment whose newest click is older than the cutoff (its
 * blocks and its click_segments row), or up to TAIL_PRUNE_ROWS tail rows older than the
 * cutoff that are already folded (id <= folded_through): a click not yet counted in the rollups
 * is never deleted, so a restart can still fold it.
 *
 * The `click_targets` rows the pruned clicks pointed to stay: they are small, shared by every
 * click that went to the same place, and no click id references them from outside the click
 * tables, so telling the unreferenced ones apart would cost a scan of every block for little.
 */
import type { Database } from 'bun:sqlite';
import { type PruneStep, TAIL_PRUNE_ROWS } from '../retention';

/**
 * Deletes one step of raw clicks older than `cutoff`, never one with an id above
 * `foldedThrough`; one IMMEDIATE transaction. The newest segment's row stays when its blocks
 * go (emptied, count 0): its last id is the seal watermark (seal.ts lastSealedId).
 */
export function pruneStep(sqlite: Database, cutoff: number, foldedThrough: number): PruneStep {
  return sqlite
    .transaction((): PruneStep => {
      const newest =
        sqlite.query<{ seg: number }, []>('SELECT seg FROM click_segments ORDER BY seg DESC LIMIT 1').get()?.seg ?? 0;
      const seg = sqlite
        .query<{ seg: number; count: number }, [number, number]>(
          `SELECT seg, count FROM click_segments WHERE max_time < ? AND last_id <= ? AND count > 0
           ORDER BY seg LIMIT 1`,
        )
        .get(cutoff, foldedThrough);
      if (seg) {
        sqlite.query('DELETE FROM click_blocks WHERE seg = ?').run(seg.seg);
        if (seg.seg === newest) sqlite.query('UPDATE click_segments SET count = 0 WHERE seg = ?').run(seg.seg);
        else sqlite.query('DELETE FROM click_segments WHERE seg = ?').run(seg.seg);
        return { kind: 'segment', clicks: seg.count };
      }
      // A segment emptied while it was the newest, with newer ones now: its row goes too.
      sqlite.query('DELETE FROM click_segments WHERE count = 0 AND seg < ?').run(newest);
      const tail = sqlite
        .query(
          `DELETE FROM click_tail WHERE id IN
             (SELECT id FROM click_tail WHERE id <= ? AND time < ? ORDER BY id LIMIT ?)`,
        )
        .run(foldedThrough, cutoff, TAIL_PRUNE_ROWS).changes;
      return tail > 0 ? { kind: 'tail', clicks: tail } : { kind: 'none' };
    })
    .immediate();
}
