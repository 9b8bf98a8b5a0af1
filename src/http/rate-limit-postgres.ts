/**
 * The API rate limit's windows on PostgreSQL (`rate_limit_windows`, UNLOGGED): one upsert per
 * request. The row lock taken by `ON CONFLICT DO UPDATE` orders concurrent hits of one identity,
 * so each gets its own count back, whichever connection or node sent it.
 */
import { num, type Pg } from '../db/postgres/client';
import type { WindowKeys } from '../db/postgres/window-keys';
import type { RateWindowStore } from './rate-limit-shared';

export function createPostgresRateWindows(sql: Pg, keys: WindowKeys): RateWindowStore {
  return {
    async hit(identity, now, windowMs) {
      const key = await keys.of(identity);
      const [row] = await sql<{ start: string; hits: string }[]>`
        INSERT INTO rate_limit_windows AS w (identity, window_start, hits) VALUES (${key}, ${now}::int8, 1)
        ON CONFLICT (identity) DO UPDATE SET
          window_start = CASE WHEN ${now}::int8 - w.window_start >= ${windowMs}::int8 THEN ${now}::int8
            ELSE w.window_start END,
          hits = CASE WHEN ${now}::int8 - w.window_start >= ${windowMs}::int8 THEN 1 ELSE w.hits + 1 END
        RETURNING window_start AS start, hits`;
      return { start: num(row!.start), hits: num(row!.hits) };
    },
    async prune(now, windowMs) {
      await sql`DELETE FROM rate_limit_windows WHERE window_start <= ${now - windowMs}::int8`;
    },
  };
}
