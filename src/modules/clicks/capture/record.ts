/**
 * What the redirect hands to the click pipeline: a compact record captured with no parsing,
 * hashing or I/O. Everything else is derived in the flush.
 */

/**
 * Where the redirect keeps a link's live counters and facts (redirect/link-table.ts): typed
 * arrays by slot, and the arena of blocks. Declared here so the click pipeline does not depend
 * on the redirect module.
 */
export interface ClickLinks {
  /** The link's stored human clicks plus every buffered click already known to be human. */
  readonly humanClicks: Float64Array;
  /** Buffered clicks not yet classified as human or bot. */
  readonly unsorted: Int32Array;
}

export interface ClickRecord {
  time: number;
  /** The slug index's counters, and the link's slot in them (valid while the click is buffered). */
  links: ClickLinks;
  slot: number;
  /**
   * The link as it was when clicked: its block in the slug index's arena (id, params, serial:
   * target-block.ts), never rewritten, so a later change or delete of the link does not alter it.
   */
  arena: Buffer;
  at: number;
  /** The block of the variant the code chose, in the same arena; -1 for the link itself. */
  variantAt: number;
  /** The Location answered. */
  location: string;
  /** The code in the address (`/<slug>/<code>`), known or not; null for the bare link. */
  code: string | null;
  address: string | null;
  userAgent: string | null;
  referrer: string | null;
  acceptLanguage: string | null;
  head: boolean;
  /**
   * Counted but not profiled (privacy.ts): address, agent, referrer and languages are null, and
   * `bot` was decided by the redirect.
   */
  optedOut?: boolean;
  /** null until classified (on the hot path only for links with a click limit, else in the flush). */
  bot: boolean | null;
  /**
   * The link rule that chose the Location (redirect/rules), as the click's target; null (or
   * absent) when none did: the target is then the link's or the variant's block.
   */
  rule?: RuleChoice | null;
}

/** A matched rule as a click target: its index in the link's rules, its own serial, its effective params. */
export interface RuleChoice {
  readonly index: number;
  readonly serial: number;
  readonly paramsJson: string;
}

/**
 * A click as the writer receives it, possibly in another thread: plain data (cheap to copy
 * between threads), already classified so the link's counters were settled on the main thread.
 */
export interface WireClick {
  time: number;
  /** The target's serial (link-table.ts); absent when unknown (a spill file outlives the process that numbered it). */
  serial?: number;
  linkId: string;
  variantId: string | null;
  code: string | null;
  location: string;
  paramsJson: string;
  address: string | null;
  userAgent: string | null;
  referrer: string | null;
  acceptLanguage: string | null;
  bot: boolean;
  /** The index of the link rule that chose the Location; null or absent: none did. */
  rule?: number | null;
  /** Counted but not profiled (capture/privacy.ts); absent: false. */
  optedOut?: boolean;
  /**
   * The ids the PostgreSQL writer names the click with, from the slug index (target-block.ts):
   * the link's dictionary value, and its click target when the click went to the link's plain
   * target (no variant, code or rule). Absent: not known, looked up by the writer.
   */
  linkValue?: number;
  targetId?: number;
}

let lastSerial = 0;

/**
 * A fresh target serial: unique to one version of a link or variant in this process, so the
 * writer caches the click's stored target by it instead of by its strings. A changed link gets
 * a new one.
 */
export function targetSerial(): number {
  return ++lastSerial;
}
