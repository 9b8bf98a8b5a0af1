/**
 * The click writer's statement on variants, prepared once on its own connection: adding a
 * batch's human clicks to a variant's count. Not a slug index write (see links/counters.ts).
 */
import type { Database } from 'bun:sqlite';

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
