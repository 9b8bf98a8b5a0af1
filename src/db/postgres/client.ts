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

/** A start that cannot connect, said in one line without the password (the CLI and serve print it as it is). */
export class PostgresConnectError extends Error {}

/**
 * The SQLSTATEs of a server that answered and refused: waiting will not change its answer. Class
 * 28 (a wrong password, a role that does not exist or that pg_hba.conf refuses), 3D000 (no such
 * database), 42501 (no CONNECT privilege). Everything else (refused or cut connections, 57P03
 * "the database system is starting up", 53300 too many connections) may pass.
 */
function permanentRefusal(err: unknown): boolean {
  const state = (err as { errno?: unknown } | null)?.errno;
  return typeof state === 'string' && (state.startsWith('28') || state === '3D000' || state === '42501');
}

/** The URL's password, decoded, as the server could quote it back. */
function passwordOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return '';
  }
}

/**
 * `url` with `application_name` set to `name` (unless the URL sets one), so that every
 * connection opened from it (the pool, the listener, the click writer's and the exports') shows
 * in pg_stat_activity as whose it is.
 */
export function withApplicationName(url: string, name: string): string {
  const u = new URL(url);
  if (u.searchParams.has('application_name')) return url;
  return `${url}${u.search ? '&' : '?'}application_name=${encodeURIComponent(name)}`;
}

/**
 * Opens the pool and waits until the server answers, retrying for up to `deadlineMs` while it
 * cannot be reached; a refusal (permanentRefusal) stops at once with the server's message.
 * `variable` names where the URL came from, for that message; messages show `url` as given.
 */
export async function connectPostgres(
  url: string,
  log: { info(message: string): void },
  options: { max?: number; deadlineMs?: number; retryMs?: number; variable?: string; applicationName?: string } = {},
): Promise<Pg> {
  const deadline = performance.now() + (options.deadlineMs ?? CONNECT_DEADLINE_MS);
  const named = options.applicationName ? withApplicationName(url, options.applicationName) : url;
  const sql = openPostgres(named, options.max);
  for (let attempt = 1; ; attempt++) {
    try {
      await sql`SELECT 1`;
      return sql;
    } catch (err) {
      const password = passwordOf(url);
      const said = err instanceof Error ? err.message : String(err);
      const reason = password ? said.split(password).join('***') : said;
      if (permanentRefusal(err)) {
        await sql.close().catch(() => {});
        throw new PostgresConnectError(
          `${options.variable ?? 'SLINK_DATABASE_URL'}: PostgreSQL at ${redactUrl(url)} refused the connection; the server says: ${reason}`,
        );
      }
      if (performance.now() + (options.retryMs ?? CONNECT_RETRY_MS) > deadline) {
        await sql.close().catch(() => {});
        throw new PostgresConnectError(`PostgreSQL at ${redactUrl(url)} cannot be reached: ${reason}`);
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

/**
 * Integers as one PostgreSQL array literal ('{1,2,3}'), for a parameter cast to int2[], int4[]
 * or int8[]: joining them costs a sixth of what `sql.array` spends quoting each element
 * (0.011 against 0.065 us an element, measured), which a click batch's columns pay per click.
 */
export function intList(values: ArrayLike<number | bigint>): string {
  return `{${Array.prototype.join.call(values, ',')}}`;
}

/** The same with nulls (NULL in the literal). */
export function intOrNullList(values: readonly (number | bigint | null)[]): string {
  let text = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    text += `${i === 0 ? '' : ','}${v === null ? 'NULL' : v}`;
  }
  return `${text}}`;
}

/**
 * Byte arrays one after the other, with each's start (1-based, as SQL's substring counts) and
 * length: sent as one bytea parameter, each row taking its `substring`, where a bytea[]
 * parameter (`sql.array(parts, 'bytea')`) costs the node about seven times as much per element
 * (each turned into quoted hex text).
 */
export function joinBytes(parts: readonly Uint8Array[]): { bytes: Uint8Array; at: Int32Array; lengths: Int32Array } {
  const at = new Int32Array(parts.length);
  const lengths = new Int32Array(parts.length);
  let size = 0;
  for (let k = 0; k < parts.length; k++) {
    at[k] = size + 1;
    lengths[k] = parts[k]!.length;
    size += parts[k]!.length;
  }
  const bytes = new Uint8Array(size);
  for (let k = 0; k < parts.length; k++) bytes.set(parts[k]!, at[k]! - 1);
  return { bytes, at, lengths };
}

/** Text an array literal's element may hold unquoted (not NULL, which would be the null). */
const BARE = /^[A-Za-z0-9_.:-]+$/;

/**
 * Strings as one PostgreSQL array literal, for a parameter cast to text[]: a bare element where
 * it needs no quotes (link ids do not), else quoted with its quotes and backslashes escaped.
 * `sql.array(values, 'text')` costs about 0.2 us an element; this a fraction of it, which the
 * click batch's and the fold's link ids pay per click.
 */
export function textList(values: readonly string[]): string {
  let text = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (i > 0) text += ',';
    text += BARE.test(v) && v.toLowerCase() !== 'null' ? v : `"${v.replace(/["\\]/g, '\\$&')}"`;
  }
  return `${text}}`;
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
