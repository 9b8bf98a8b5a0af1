/**
 * The write side of the raw clicks: one click_tail row per click, every text fact replaced by
 * an id (rollup_values for the link and the dimensions, click_targets for where it went). The
 * writer assigns the ids itself, in write order, from click_state('last_id'): an id is never
 * reused, even after the newest clicks were deleted with their link, so "clicks after id N"
 * (the export's snapshot, the fold's watermark) always means the same clicks.
 */
import type { Database, Statement } from 'bun:sqlite';
import { DIM_COLUMNS, DIM_COUNT, type RollupValues, valueIdsOf } from '../../rollups/public';
import type { EnrichedClick } from '../enrich/enrich';
import { clickFlags, visitorBits } from '../stored-click';
import { TargetIds } from './click-targets';

/** The 16 hex characters of a stored visitor from its two halves (high signed, low unsigned). */
export function visitorHex(hi: number, lo: number): string {
  return (hi >>> 0).toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}

/** The newest click id ever assigned (0 before the first click). */
export function readLastId(sqlite: Database): number {
  return sqlite
    .query<{ id: number }, []>(
      `SELECT max(coalesce((SELECT value FROM click_state WHERE name = 'last_id'), 0),
         coalesce((SELECT max(id) FROM click_tail), 0),
         coalesce((SELECT last_id FROM click_segments ORDER BY seg DESC LIMIT 1), 0)) AS id`,
    )
    .get()!.id;
}

/**
 * The tail's insert: (id, link, time, target, the dimensions' ids in CLICK_DIMS order, visitor,
 * flags).
 */
export function prepareTailInsert(sqlite: Database): Statement {
  const columns = ['id', 'link', 'time', 'target', ...DIM_COLUMNS, 'visitor', 'flags'];
  return sqlite.prepare(`INSERT INTO click_tail (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
}

export class TailAppender {
  private readonly targets: TargetIds;
  private readonly insert: Statement;
  private readonly store: Statement;
  /** The last id assigned in the open transaction; null outside one (read again at its first click). */
  private last: number | null = null;
  /** The last id of the last committed transaction. */
  lastCommitted = 0;

  constructor(
    private readonly sqlite: Database,
    private readonly values: RollupValues,
  ) {
    this.targets = new TargetIds(sqlite);
    this.insert = prepareTailInsert(sqlite);
    this.store = sqlite.prepare(
      `INSERT INTO click_state (name, value) VALUES ('last_id', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
    );
  }

  /**
   * Appends one click inside the caller's transaction; returns its id. `link` and `ids` (the
   * click's breakdown value ids, as rollups/rollups.ts valueIdsOf gives them: its eight dimensions first)
   * save looking them up again when the caller already has them.
   */
  append(c: EnrichedClick, firstOfDay: boolean, link?: number, ids?: readonly number[]): number {
    if (this.last === null) this.last = readLastId(this.sqlite);
    const id = ++this.last;
    const v = this.values;
    const d = ids ?? valueIdsOf(v, c);
    this.insert.run(
      id,
      link ?? v.idOf('link', '', c.linkId),
      c.time,
      this.targets.idOf(c.serial, {
        linkId: c.linkId,
        variantId: c.variantId,
        code: c.code,
        destination: c.destination,
        params: c.paramsJson,
        rule: c.rule,
      }),
      ...d.slice(0, DIM_COUNT),
      visitorBits(c.visitorHash),
      clickFlags(c, firstOfDay),
    );
    return id;
  }

  /** Ends the caller's transaction's appends: stores the last id with it. */
  finish(): void {
    if (this.last !== null) this.store.run(this.last);
  }

  /** The caller's transaction committed. */
  commit(): void {
    if (this.last !== null) this.lastCommitted = this.last;
    this.last = null;
    this.targets.commit();
  }

  /** The caller's transaction rolled back: its ids and targets were never written. */
  rollback(): void {
    this.last = null;
    this.targets.rollback();
  }
}
