/**
 * A link's raw clicks on PostgreSQL go with it (inside the delete's transaction, as on SQLite:
 * sqlite/raw-read.ts deleteLinkClicks): its tail rows, its blocks, its uniques, its targets.
 * The delete's transaction holds the click barrier exclusively (links/postgres/store.ts).
 *
 * The tail rows go before the blocks: a seal running at the same moment deletes its tail rows
 * first too (postgres/seal.ts), so a row of this link it packed is one this delete waited for,
 * and the block it went into is committed before the blocks are deleted here.
 */
import type { Pg } from '../../../db/postgres/client';
import { linkValueIdPg } from '../../rollups/public';

export async function deleteLinkClicksPg(tx: Pg, linkId: string): Promise<void> {
  const link = await linkValueIdPg(tx, linkId);
  if (link !== null) {
    await tx`DELETE FROM click_tail WHERE link = ${link}`;
    await tx`DELETE FROM click_blocks WHERE link = ${link}`;
    await tx`DELETE FROM click_uniques WHERE link = ${link}`;
  }
  await tx`DELETE FROM click_targets WHERE link_id = ${linkId}`;
}
