/**
 * The PostgreSQL connection pool (Bun's built-in client, `Bun.SQL`), opened with a retry: a
 * database server that is still starting (a fresh boot, a restart of both) is waited for up to
 * CONNECT_DEADLINE_MS with a log line per attempt, then the start fails with one line.
 * int8 columns come back as strings: stores convert them (`num`) where they read them.
 */
import { SQL } from 'bun';

/** How long a start waits for an unreachable server. */
export const CONNECT_DEADLINE_MS = 30_000;
/** Pause between connection attempts at start. */
const CONNECT_RETRY_MS = 1000;
/**
 * Connections per process. The API, statistics, the slug index and the sessions share them; the
 * click writer opens its own. A 2-core node rarely has more than a few queries in flight.
 */
export const POOL_SIZE = 10;

export type Pg = SQL;

/** The URL without its password, for logs and messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}

export function openPostgres(url: string, max = POOL_SIZE): Pg {
  return new SQL(url, {
    max,
    // Statements are prepared by their text; the stores' texts are fixed, so the cache stays small.
    prepare: true,
    // A prepared statement's generic plan knows nothing of its arrays: it takes `unnest($1)` for
    // ten rows and joins a 2,000-click batch by a nested loop of sequential scans (a counters
    // update of 18,000 links took 17 s instead of 0.5). Planning each execution with its values
    // costs a fraction of a millisecond.
    connection: { plan_cache_mode: 'force_custom_plan' },
    // A connection that never answers must not hold a request forever.
    connectionTimeout: 10,
    idleTimeout: 60,
  });
}

/** Opens the pool and waits until the server answers, retrying for up to `deadlineMs`. */
export async function connectPostgres(
  url: string,
  log: { info(message: string): void },
  options: { max?: number; deadlineMs?: number; retryMs?: number } = {},
): Promise<Pg> {
  const deadline = performance.now() + (options.deadlineMs ?? CONNECT_DEADLINE_MS);
  const sql = openPostgres(url, options.max);
  for (let attempt = 1; ; attempt++) {
    try {
      await sql`SELECT 1`;
      return sql;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (performance.now() + (options.retryMs ?? CONNECT_RETRY_MS) > deadline) {
        await sql.close().catch(() => {});
        throw new Error(`PostgreSQL at ${redactUrl(url)} cannot be reached: ${reason}`);
      }
      log.info(`PostgreSQL at ${redactUrl(url)} not reachable yet (attempt ${attempt}: ${reason}); retrying`);
      await Bun.sleep(options.retryMs ?? CONNECT_RETRY_MS);
    }
  }
}

/** An int8 (or numeric) column as a number; the values stored fit in 53 bits (times in ms, counts). */
export function num(value: string | number | bigint): number {
  return typeof value === 'number' ? value : Number(value);
}

/** The same for a nullable column. */
export function numOrNull(value: string | number | bigint | null): number | null {
  return value === null ? null : num(value);
}

/** A piece of SQL made with the tagged template, to be placed inside another (conditions, orders). */
export type PgFragment = SQL.Query<unknown>;

/**
 * Whether a key can name a row. PostgreSQL text cannot hold NUL, and the server refuses a whole
 * statement that carries one; SQLite's text can, and simply finds no row. Validation keeps NUL
 * out of every value written, so a lookup key holding one (an id in a path, a filter) names
 * nothing: the stores answer so without asking, as SQLite would.
 */
export function storable(key: string): boolean {
  return !key.includes('\0');
}

/** The keys that can name a row (storable). */
export function storableKeys(keys: readonly string[]): string[] {
  return keys.every(storable) ? [...keys] : keys.filter(storable);
}
