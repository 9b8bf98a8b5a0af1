/**
 * The click writer's statement on variants, prepared once on its own connection: adding a
 * batch's human clicks to a variant's count. Not a slug index write (see links/counters.ts).
 */
import type { Database } from 'bun:sqlite';
import type { Pg } from '../../db/postgres/client';

interface VariantCounterStatements {
  bump(id: string, clicks: number): void;
  /** Every variant's count back to zero, before it is summed again from the raw clicks (the upgrade). */
  resetAll(): void;
}

export function prepareVariantCounters(sqlite: Database): VariantCounterStatements {
  const bump = sqlite.prepare<unknown, [number, string]>(
    'UPDATE variants SET click_count = click_count + ? WHERE id = ?',
  );
  return {
    bump(id, clicks) {
      bump.run(clicks, id);
    },
    resetAll() {
      sqlite.run('UPDATE variants SET click_count = 0');
    },
  };
}

/** PostgreSQL, inside a batch's transaction: adds human clicks to variants (a deleted one's update finds no row). */
export async function bumpVariantCounters(tx: Pg, clicks: ReadonlyMap<string, number>): Promise<void> {
  if (clicks.size === 0) return;
  const ids = [...clicks.keys()].sort();
  await tx`UPDATE variants v SET click_count = v.click_count + u.n
    FROM unnest(${tx.array(ids, 'text')}::text[], ${tx.array(
      ids.map((id) => clicks.get(id)!),
      'int8',
    )}::int8[]) AS u(id, n)
    WHERE v.id = u.id`;
}
