/**
 * What an import reads: one interface every source implements (shlink, bitly, kutt, yourls, dub,
 * csv, slink), so the import engine knows nothing of any product's API and a source knows
 * nothing of Slink's storage. A source only reads; it never writes and never decides what Slink
 * accepts (the engine applies Slink's own rules to every link and says why it skipped one).
 *
 * History is what the source keeps, never invented: a field the source lacks is null (unknown),
 * a source with daily counts gives days, one with a total gives only the total.
 */

export const SOURCE_NAMES = ['shlink', 'bitly', 'kutt', 'yourls', 'dub', 'csv', 'slink'] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

/** How much history a source can carry for a link, richest first. */
export type HistoryKind = 'visits' | 'daily' | 'total' | 'none';

/** One link as the source has it. Times are epoch milliseconds (UTC). */
export interface SourceLink {
  /** The source's own stable id for the link (its short code with domain, its guid...): the
   * idempotence key, so a re-run never makes the link twice. */
  sourceId: string;
  /** The destination, as the source stores it. */
  url: string;
  /** The back-half the source answers (its short code, key, address); null when the source made
   * it up and it need not be kept (Slink then picks one). */
  slug: string | null;
  /** The short host the source answers it on (lowercase); null for the source's default. */
  domain: string | null;
  title: string | null;
  tags: string[];
  createdAt: number | null;
  /** When the link stops answering (Shlink validUntil, Kutt expire_in, Dub expiresAt). */
  expiresAt: number | null;
  /** The most clicks it answers (Shlink maxVisits). */
  clickLimit: number | null;
  /** Archived or disabled at the source (Bitly archived, Dub archived). */
  archived: boolean;
  /** The source's total click count, when that is all (or part of what) it keeps. */
  totalClicks: number | null;
  /** The richest history the source can give for this link. */
  history: HistoryKind;
  /**
   * Optional, for a source that has them (the `slink` source): the link's variants, each its code
   * and the params it layers over the link's. A visit names its variant by `variantCode`.
   */
  variants?: readonly { code: string; params: Readonly<Record<string, string>> }[] | null;
  /**
   * Optional: the link has daily counts besides its visits (another Slink's export carries the
   * daily counts its own import brought): read by `days` after its visits. Absent: none.
   */
  daysToo?: boolean;
  /**
   * Optional, for a source that gives it (another Slink's export, `countedOnly`): the clicks the
   * link counts that none of its visits or days hold (a total imported there, raw clicks its
   * retention removed), humans, their unique visitors and bots apart: the link's starting counts
   * beside its visits, set once. Absent: none.
   */
  countedOnly?: CountedOnly | null;
  /**
   * Optional, with countedOnly: the link's own counts at the source, its visits, days and
   * countedOnly together (humans, their unique visitors, bots). An import of a later export
   * over an earlier one adds what they grew by that its new visits and days do not hold.
   */
  sourceCounts?: CountedOnly | null;
  /**
   * Why this link cannot move to Slink at all, in words the engine reports as it skips it (a
   * bit.ly address: nobody but Bitly answers bit.ly). Absent or null: it may move.
   */
  cannotMove?: string | null;
  /**
   * Why the source's record of this link cannot be taken as it is (a field out of its bounds,
   * named): the engine reports the link failed with it and reads on. Absent or null: none.
   */
  invalid?: string | null;
  /**
   * Optional, for a source that keeps more of a link than the fields above (the `slink` source):
   * absent where it does not. Its project's name (the link goes into the Slink project of that
   * name, made if missing, unless the import names one), its params, a paused link, and its
   * redirect options.
   */
  project?: string | null;
  params?: Readonly<Record<string, string>> | null;
  paused?: boolean;
  fallbackUrl?: string | null;
  redirectStatus?: number | null;
  forwardQuery?: boolean;
  /**
   * Optional, for a source that keeps them (the `slink` source): the link's rules and preview as
   * the export wrote them (checked by Slink's rules before they are taken), whether it asks for
   * a password, and that password's stored hash (argon2id; never a password in clear).
   */
  rules?: unknown;
  preview?: unknown;
  passwordProtected?: boolean;
  passwordHash?: string | null;
}

/** Counts a link has beyond its visits and days (SourceLink.countedOnly). */
export interface CountedOnly {
  clicks: number;
  uniques: number;
  bots: number;
}

/**
 * `base` with visits and daily counts added as an import stores them: a visit the source marks
 * a bot is a bot, else a human (a unique visitor when its first visit), a day's clicks humans.
 */
export function withCounts(base: CountedOnly, visits: readonly SourceVisit[], days: readonly SourceDay[]): CountedOnly {
  const counts = { ...base };
  for (const v of visits) {
    if (v.bot === true) counts.bots++;
    else {
      counts.clicks++;
      if (v.firstVisit === true) counts.uniques++;
    }
  }
  for (const d of days) counts.clicks += d.clicks;
  return counts;
}

/** A short domain the source serves links on, with its settings (the `slink` source's domain lines). */
export interface SourceDomain {
  host: string;
  /** http(s)://host[:port]. */
  origin: string;
  rootUrl: string | null;
  notFoundUrl: string | null;
  expiredUrl: string | null;
  upstream: string | null;
  appleAppSiteAssociation: unknown;
  assetLinks: unknown;
}

/** One visit as the source recorded it. Unknown fields are null, never guessed. */
export interface SourceVisit {
  /** The source's own id for the visit when it has one (Dub's click id), else null. */
  sourceId: string | null;
  at: number;
  referrer: string | null;
  userAgent: string | null;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string | null;
  city: string | null;
  /** The source's own bot verdict (Shlink potentialBot); null: classify from the user agent. */
  bot: boolean | null;
  /** Already parsed by the source (Dub) when it has no raw user agent; null otherwise. */
  device: string | null;
  browser: string | null;
  os: string | null;
  /**
   * Optional, for a source that keeps what a Slink click record has (the `slink` source): absent
   * or null where unknown. The variant code the click named, its language, traffic type, the
   * params and destination it was sent to, and the link rule that sent it.
   */
  variantCode?: string | null;
  language?: string | null;
  trafficType?: string | null;
  params?: Readonly<Record<string, string>> | null;
  destination?: string | null;
  rule?: number | null;
  /**
   * Optional: true when the source recorded the visit as its visitor's first of its UTC day on
   * the link (another Slink's export, `unique`), so it counts as a unique visitor; absent, null or
   * false: no unique (no other source knows).
   */
  firstVisit?: boolean | null;
}

/** One UTC day's click count. */
export interface SourceDay {
  /** YYYY-MM-DD, UTC. */
  day: string;
  clicks: number;
}

/** One page of links and where the next one starts (opaque, saved to resume a stopped run). */
export interface SourcePage {
  links: SourceLink[];
  /** null: this was the last page. */
  next: string | null;
}

/**
 * What a source's `sleep` throws instead of waiting that long: the request that starts a run
 * answers at once rather than wait out a rate limit of minutes (service.ts, startImport).
 */
export class WaitRefused extends Error {
  constructor(readonly ms: number) {
    super(`a wait of ${ms} ms refused`);
    this.name = 'WaitRefused';
  }
}

/** A failure to read the source, in words a person can act on (never carrying the token). */
export class SourceError extends Error {
  constructor(
    message: string,
    /** True when retrying later may succeed (a 5xx, a timeout); false for a refused token. */
    readonly retryable: boolean,
    /** Optional: the input at fault, when the source knows (a refused token: 'token'); the API's 400 names it. */
    readonly field?: 'url' | 'token' | 'file',
  ) {
    super(message);
    this.name = 'SourceError';
  }
}

export interface ImportSource {
  readonly name: SourceName;
  /** Checks the address and token before a run starts (one cheap request); throws SourceError. */
  check(signal: AbortSignal): Promise<void>;
  /** The page of links that starts at `cursor` (null: the first). */
  page(cursor: string | null, signal: AbortSignal): Promise<SourcePage>;
  /**
   * A link's visits recorded after `after` (epoch ms, exclusive; null: all), oldest first, in
   * batches. Only for links whose history is 'visits'.
   */
  visits?(link: SourceLink, after: number | null, signal: AbortSignal): AsyncIterable<SourceVisit[]>;
  /** A link's daily counts for days after `after` (YYYY-MM-DD, exclusive; null: all), oldest
   * first. Only for links whose history is 'daily', or 'visits' with `daysToo`. */
  days?(link: SourceLink, after: string | null, signal: AbortSignal): Promise<SourceDay[]>;
  /**
   * Optional: the source's own short domains read so far but its default (made here when
   * missing, before the page's links are decided, unless the import names a domain).
   */
  domains?(): readonly SourceDomain[];
  /**
   * How many links' history the runner may read at once from this source (the product's rate
   * limits); absent: the runner's default (runner/page-history.ts HISTORY_IN_FLIGHT).
   */
  readonly historyInFlight?: number;
  /**
   * Whether its next page may be read before this page's history is: its pages and its links'
   * history are separate requests (Shlink). Absent: not (a stream such as another Slink's
   * export carries a page's history after its links and before the next page's).
   */
  readonly readAhead?: boolean;
  /**
   * Whether an id given again is another record claiming the same slug (a CSV row's id is its own
   * words: its slug or short address), not the same link given again (a product's ids, seen twice
   * when its pages shift while they are read). Absent: the same link.
   */
  readonly idsAreRows?: boolean;
}

/** What a source is built from: the request's address, token and file, never stored. */
export interface SourceOptions {
  url: string | null;
  token: string | null;
  /** A file's bytes (csv, slink), streamed: an export may be larger than memory. */
  file: ReadableStream<Uint8Array> | null;
  fetch: typeof fetch;
  /** Waits out a source's rate limit; injected so tests never sleep on the clock. */
  sleep: (ms: number) => Promise<void>;
  /**
   * Whether the source may be on a loopback, private or link-local address (the old service's switch,
   * SLINK_UPSTREAM_ALLOW_PRIVATE, as read-through's); absent: refused, so an import cannot be used to
   * reach the inside of the network this service runs in.
   */
  allowPrivate?: boolean;
}
