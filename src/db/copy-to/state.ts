/**
 * Where a `slink copy-to` stands, recorded in the target itself (`slink_copy_to`, one row): the
 * source file, a fingerprint of its contents, the step under way and the position within it.
 * Every step commits its rows and its new position in one transaction, so after a crash the row
 * says exactly what the target holds, and a re-run resumes there. The row stays after the copy
 * ('done'), naming where the data came from. It is not part of the schema the service uses.
 */
import type { Pg } from '../postgres/client';
import { DATA_TABLES, MIGRATION_ROWS, PLAIN_TABLES } from './tables';

/**
 * The steps in order: a step per plain table (tables.ts), then the special ones; 'verify' once
 * everything is copied, 'done' once verified.
 */
export const STEPS: readonly string[] = [
  ...PLAIN_TABLES.map((t) => t.name),
  'rollups',
  'click_blocks',
  'click_tail',
  'sequences',
  'verify',
  'done',
];
export type Step = string;

export interface CopyState {
  source: string;
  fingerprint: string;
  step: Step;
  /**
   * Within a chunked step: the next scope (rollups), the last segment (click_blocks) or the last
   * click id (click_tail) copied.
   */
  position: number;
}

export async function readCopyState(sql: Pg): Promise<CopyState | null> {
  const [exists] = await sql`SELECT to_regclass('slink_copy_to') IS NOT NULL AS e`;
  if (!exists.e) return null;
  const [row] = await sql`SELECT source, fingerprint, step, position FROM slink_copy_to`;
  if (row === undefined) return null;
  return { source: row.source, fingerprint: row.fingerprint, step: row.step, position: Number(row.position) };
}

/** The first table of the schema that holds a row, or null. */
export async function firstTableWithData(sql: Pg): Promise<string | null> {
  for (const table of DATA_TABLES) {
    const made = MIGRATION_ROWS[table];
    const where = made === undefined ? '' : ` WHERE NOT (${made})`;
    const [row] = await sql.unsafe(`SELECT EXISTS (SELECT 1 FROM ${table}${where}) AS e`);
    if (row.e) return table;
  }
  return null;
}

/**
 * Starts a copy from scratch, the state at the first step; `over` (a partial copy of an older
 * state of the source is there): every table emptied first.
 */
export async function beginCopy(sql: Pg, source: string, fingerprint: string, over: boolean): Promise<CopyState> {
  await sql.begin(async (tx) => {
    await tx`CREATE TABLE IF NOT EXISTS slink_copy_to (
      source text NOT NULL,
      fingerprint text NOT NULL,
      step text NOT NULL,
      position int8 NOT NULL,
      started_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz
    )`;
    // CASCADE: PostgreSQL's own tables that point at copied ones (read-through's misses of a
    // domain) are emptied with them, as they would be by deleting their rows.
    if (over) await tx.unsafe(`TRUNCATE ${DATA_TABLES.join(', ')} RESTART IDENTITY CASCADE`);
    for (const [table, made] of Object.entries(MIGRATION_ROWS)) await tx.unsafe(`DELETE FROM ${table} WHERE ${made}`);
    await tx`DELETE FROM slink_copy_to`;
    await tx`INSERT INTO slink_copy_to (source, fingerprint, step, position) VALUES (${source}, ${fingerprint}, ${STEPS[0]!}, 0)`;
  });
  return { source, fingerprint, step: STEPS[0]!, position: 0 };
}

/** Records the position within the step (inside the transaction that wrote its rows). */
export async function savePosition(tx: Pg, position: number): Promise<void> {
  await tx`UPDATE slink_copy_to SET position = ${position}`;
}

/** Moves on to the next step (inside the transaction that finished this one). */
export async function finishStep(tx: Pg, step: Step): Promise<Step> {
  const next = STEPS[STEPS.indexOf(step) + 1]!;
  await tx`UPDATE slink_copy_to SET step = ${next}, position = 0,
    finished_at = CASE WHEN ${next} = 'done' THEN now() END`;
  return next;
}
