/**
 * The only reader of SLINK_* variables. Everything else receives a frozen Config.
 * The table below is also what `slink --help` prints, so docs and behaviour cannot drift.
 */

import { hostname } from 'node:os';

export interface Config {
  readonly port: number;
  readonly hostname: string;
  readonly dbPath: string;
  /** Public origin of short links, no trailing slash: shortUrl = `${shortHost}/${slug}`. */
  readonly shortHost: string;
  /** Public origin of the dashboard and the API, no trailing slash. */
  readonly appHost: string;
  readonly flushMs: number;
  /** How many proxies stand in front (SLINK_TRUST_PROXY): 0 trusts no X-Forwarded-For. */
  readonly trustProxy: number;
  /** Path of a MaxMind-format database, or null for the bundled default. */
  readonly geoDb: string | null;
  readonly rateLimit: number;
  readonly workspaceName: string;
  /** Raw clicks older than this many days are deleted by the click writer; 0 keeps every one. */
  readonly retentionDays: number;
  /** Bearer token of GET /metrics; null: /metrics does not exist. */
  readonly metricsToken: string | null;
  /** Dashboard sessions end this many days after sign-in (and after 7 idle days). */
  readonly sessionDays: number;
  /** PostgreSQL URL (SLINK_DATABASE_URL): store everything there instead of the SQLite file; null: SQLite. */
  readonly databaseUrl: string | null;
  /** This node's name in logs, /healthz and metrics (SLINK_NODE_ID; default the host name). */
  readonly nodeId: string;
  /** SLINK_WEBHOOKS_ALLOW_PRIVATE: webhooks may be delivered to loopback and private addresses. */
  readonly webhooksAllowPrivate: boolean;
  /** SLINK_UPSTREAM_ALLOW_PRIVATE: import sources and a domain's upstream may be asked at loopback and private addresses. */
  readonly upstreamAllowPrivate: boolean;
  /** SLINK_LIVE_STREAMS: live event streams (GET /api/v1/events) one process holds open at most. */
  readonly liveStreams: number;
  /** The privacy switches (docs/operations.md, "Privacy"): which clicks are counted but not profiled, and what a click keeps. */
  readonly privacy: PrivacyConfig;
}

/** What a click keeps of its place: city and country, the country only, or nothing. */
export type GeoLevel = 'city' | 'country' | 'none';

export interface PrivacyConfig {
  /** SLINK_HONOR_GPC: a request carrying `Sec-GPC: 1` is counted but not profiled. */
  readonly honorGpc: boolean;
  /** SLINK_HONOR_DNT: the same for `DNT: 1`. */
  readonly honorDnt: boolean;
  /** SLINK_NO_TRACK_PARAM: a query parameter that opts a click out (and is never forwarded); null: none. */
  readonly noTrackParam: string | null;
  /** SLINK_REFERRER: whether a click keeps its referrer's host. */
  readonly referrer: 'host' | 'none';
  /** SLINK_GEO: what a click keeps of its place. */
  readonly geo: GeoLevel;
}

interface ConfigVar {
  name: string;
  default: string;
  meaning: string;
}

export const CONFIG_VARS: readonly ConfigVar[] = [
  { name: 'SLINK_PORT', default: '3000', meaning: 'TCP port' },
  { name: 'SLINK_HOSTNAME', default: '0.0.0.0', meaning: 'bind address' },
  { name: 'SLINK_DB', default: './data/slink.db', meaning: 'SQLite file (WAL mode); the folder is created if missing' },
  {
    name: 'SLINK_SHORT_HOST',
    default: 'http://localhost:$SLINK_PORT',
    meaning: 'public origin of the default short domain',
  },
  {
    name: 'SLINK_APP_HOST',
    default: 'same as SLINK_SHORT_HOST',
    meaning: 'public origin of the dashboard and the API',
  },
  { name: 'SLINK_FLUSH_MS', default: '1000', meaning: 'how often buffered clicks are written (ms)' },
  {
    name: 'SLINK_TRUST_PROXY',
    default: '0',
    meaning:
      'N > 0: Slink sits behind N proxies; the client address is the N-th X-Forwarded-For entry counted from the right',
  },
  {
    name: 'SLINK_GEO_DB',
    default: 'the bundled default',
    meaning: 'path to a MaxMind-format (.mmdb) city or country database',
  },
  { name: 'SLINK_RATE_LIMIT', default: '600', meaning: 'requests per minute per API key' },
  { name: 'SLINK_WORKSPACE_NAME', default: 'Slink', meaning: 'workspace name shown by GET /workspace' },
  {
    name: 'SLINK_RETENTION_DAYS',
    default: '0',
    meaning:
      'N > 0: raw clicks older than N days are deleted (in small steps, in the background); statistics keep answering from the rollups, which are never pruned; 0 keeps everything',
  },
  {
    name: 'SLINK_METRICS_TOKEN',
    default: '(unset)',
    meaning:
      'when set, GET /metrics on the app host answers Prometheus text format to Authorization: Bearer <token>; unset: /metrics is 404',
  },
  {
    name: 'SLINK_SESSION_DAYS',
    default: '30',
    meaning: 'dashboard sessions end this many days after sign-in (and after 7 idle days)',
  },
  {
    name: 'SLINK_DATABASE_URL',
    default: '(unset)',
    meaning:
      'postgres://user:password@host:5432/dbname (or postgresql://): store everything in that PostgreSQL database (15 or newer) instead of the SQLite file at SLINK_DB',
  },
  {
    name: 'SLINK_NODE_ID',
    default: 'the host name',
    meaning: "this node's name in logs, /healthz and metrics",
  },
  {
    name: 'SLINK_WEBHOOKS_ALLOW_PRIVATE',
    default: '0',
    meaning:
      '1: webhooks may be delivered to loopback and private addresses (tests, internal receivers); 0 refuses them at create and at delivery',
  },
  {
    name: 'SLINK_UPSTREAM_ALLOW_PRIVATE',
    default: '0',
    meaning:
      "1: the old service (import sources, a domain's read-through upstream) may be asked at loopback and private addresses (tests, an old service on the same network); 0 refuses them",
  },
  {
    name: 'SLINK_LIVE_STREAMS',
    default: '500',
    meaning: 'live event streams (GET /api/v1/events) one process holds open at most; 429 beyond',
  },
  {
    name: 'SLINK_HONOR_GPC',
    default: '1',
    meaning:
      '1: a request carrying Sec-GPC: 1 (Global Privacy Control) is counted but not profiled; 0: profiled like any',
  },
  { name: 'SLINK_HONOR_DNT', default: '0', meaning: '1: the same for DNT: 1' },
  {
    name: 'SLINK_NO_TRACK_PARAM',
    default: '(unset)',
    meaning:
      'a query parameter name; present on a short-link request, that click is counted but not profiled, and the parameter is never forwarded',
  },
  { name: 'SLINK_REFERRER', default: 'host', meaning: 'what a click keeps of its referrer: host, or none' },
  {
    name: 'SLINK_GEO',
    default: 'city',
    meaning: 'what a click keeps of its place: city (and country), country, or none',
  },
];

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function intVar(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** An origin such as https://sl.ink: scheme and host only, so links are built by plain concatenation. */
function originVar(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must use http or https, got "${raw}"`);
  }
  if (url.pathname !== '/' || url.search || url.hash) {
    throw new ConfigError(`${name} must be an origin without a path, got "${raw}"`);
  }
  return url.origin;
}

/**
 * A PostgreSQL connection URL: postgres:// or postgresql://, with a host and a database name.
 * The message never repeats the URL: it may hold a password.
 */
function databaseUrlVar(env: Env): string | null {
  const raw = env.SLINK_DATABASE_URL;
  if (raw === undefined || raw === '') return null;
  unencodedUserinfo(raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('SLINK_DATABASE_URL must be a URL like postgres://user:password@host:5432/dbname');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(`SLINK_DATABASE_URL must start with postgres:// or postgresql://, not ${url.protocol}//`);
  }
  if (url.hostname === '') throw new ConfigError('SLINK_DATABASE_URL must name a host');
  if (url.pathname.length < 2) throw new ConfigError('SLINK_DATABASE_URL must name a database (…:5432/dbname)');
  return raw;
}

/**
 * A password (or user) holding `/`, `?` or `#` as they are: a URL's user and password end at the
 * first of those, so the parser takes part of the password for the host or the port and the
 * message would blame the URL's shape. Recognised by an `@` followed by what reads as
 * `host/dbname`, after one of them.
 */
function unencodedUserinfo(raw: string): void {
  const rest = raw.slice(raw.indexOf('://') + 3);
  const at = rest.lastIndexOf('@');
  if (at < 0 || !/[/?#]/.test(rest.slice(0, at)) || !/^[^/?#@]+\/[^/?#]/.test(rest.slice(at + 1))) return;
  throw new ConfigError(
    'SLINK_DATABASE_URL: the user or password holds "/", "?" or "#": percent-encode them (encode / as %2F and # as %23, ? as %3F, @ as %40)',
  );
}

/** A node id: what logs and metrics label; letters, digits and . _ - only, so it is safe in both. */
function nodeIdVar(env: Env): string {
  const raw = env.SLINK_NODE_ID || hostname();
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(raw)) {
    throw new ConfigError(`SLINK_NODE_ID must be 1 to 64 letters, digits, ".", "_" or "-", got "${raw}"`);
  }
  return raw;
}

function choiceVar<T extends string>(env: Env, name: string, choices: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return choices[0]!;
  if (!(choices as readonly string[]).includes(raw))
    throw new ConfigError(`${name} must be one of ${choices.join(', ')}, got "${raw}"`);
  return raw as T;
}

/** A query parameter name: plain characters only, so it is found in a raw query string as it is written. */
function paramNameVar(env: Env, name: string): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  if (!/^[A-Za-z0-9._~-]{1,64}$/.test(raw))
    throw new ConfigError(`${name} must be 1 to 64 letters, digits, ".", "_", "~" or "-", got "${raw}"`);
  return raw;
}

function privacyVars(env: Env): PrivacyConfig {
  return Object.freeze({
    honorGpc: intVar(env, 'SLINK_HONOR_GPC', 1, 0, 1) === 1,
    honorDnt: intVar(env, 'SLINK_HONOR_DNT', 0, 0, 1) === 1,
    noTrackParam: paramNameVar(env, 'SLINK_NO_TRACK_PARAM'),
    referrer: choiceVar(env, 'SLINK_REFERRER', ['host', 'none'] as const),
    geo: choiceVar(env, 'SLINK_GEO', ['city', 'country', 'none'] as const),
  });
}

export function loadConfig(env: Env = process.env): Config {
  const port = intVar(env, 'SLINK_PORT', 3000, 0, 65535);
  const shortHost = originVar(env, 'SLINK_SHORT_HOST', `http://localhost:${port}`);
  return Object.freeze({
    port,
    hostname: env.SLINK_HOSTNAME || '0.0.0.0',
    dbPath: env.SLINK_DB || './data/slink.db',
    shortHost,
    appHost: originVar(env, 'SLINK_APP_HOST', shortHost),
    flushMs: intVar(env, 'SLINK_FLUSH_MS', 1000, 10, 60_000),
    // Ten proxies in a row is already far beyond any real chain; more is a typo.
    trustProxy: intVar(env, 'SLINK_TRUST_PROXY', 0, 0, 10),
    geoDb: env.SLINK_GEO_DB || null,
    rateLimit: intVar(env, 'SLINK_RATE_LIMIT', 600, 1, 1_000_000),
    workspaceName: env.SLINK_WORKSPACE_NAME || 'Slink',
    // A hundred years at most: the cutoff stays well inside safe integers.
    retentionDays: intVar(env, 'SLINK_RETENTION_DAYS', 0, 0, 36_500),
    metricsToken: env.SLINK_METRICS_TOKEN || null,
    // Ten years at most: the cookie's Max-Age and the expiry stay well inside safe integers.
    sessionDays: intVar(env, 'SLINK_SESSION_DAYS', 30, 1, 3650),
    databaseUrl: databaseUrlVar(env),
    nodeId: nodeIdVar(env),
    webhooksAllowPrivate: intVar(env, 'SLINK_WEBHOOKS_ALLOW_PRIVATE', 0, 0, 1) === 1,
    upstreamAllowPrivate: intVar(env, 'SLINK_UPSTREAM_ALLOW_PRIVATE', 0, 0, 1) === 1,
    liveStreams: intVar(env, 'SLINK_LIVE_STREAMS', 500, 1, 100_000),
    privacy: privacyVars(env),
  });
}

export function configHelp(): string {
  const width = Math.max(...CONFIG_VARS.map((v) => v.name.length));
  const defWidth = Math.max(...CONFIG_VARS.map((v) => v.default.length));
  return CONFIG_VARS.map((v) => `  ${v.name.padEnd(width)}  ${v.default.padEnd(defWidth)}  ${v.meaning}`).join('\n');
}
