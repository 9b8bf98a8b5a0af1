/**
 * What the redirect hands to the click pipeline: a compact record captured with no parsing,
 * hashing or I/O. Everything else is derived in the flush.
 */

/**
 * Live counters of one link, shared by the redirect (click limit) and the flush. `humanClicks`
 * is the link's stored clickCount plus every buffered click already known to be human;
 * `unsorted` counts buffered clicks not yet classified as human or bot.
 */
export interface LinkCounters {
  humanClicks: number;
  unsorted: number;
}

/** Where a click goes: the link (or one variant) with its effective params, prepared in advance. */
export interface ClickTarget {
  /**
   * Unique to this object in this process (targetSerial): the writer caches the click's stored
   * target by it instead of by its four strings. A changed link gets new targets, new serials.
   */
  readonly serial: number;
  readonly linkId: string;
  readonly variantId: string | null;
  /** The Location header value: destination with the effective params applied. */
  readonly location: string;
  /** Effective params (link params overlaid by the variant's) as JSON, recorded with each click. */
  readonly paramsJson: string;
  readonly counters: LinkCounters;
}

export interface ClickRecord {
  time: number;
  target: ClickTarget;
  /** The code in the address (`/<slug>/<code>`), known or not; null for the bare link. */
  code: string | null;
  address: string | null;
  userAgent: string | null;
  referrer: string | null;
  acceptLanguage: string | null;
  head: boolean;
  /** null until classified (on the hot path only for links with a click limit, else in the flush). */
  bot: boolean | null;
}

/**
 * A click as the writer receives it, possibly in another thread: plain data (cheap to copy
 * between threads), already classified so the link's counters were settled on the main thread.
 */
export interface WireClick {
  time: number;
  /** The ClickTarget's serial; absent when unknown (a spill file outlives the process that numbered it). */
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
}

let lastSerial = 0;

/** A fresh ClickTarget serial. */
export function targetSerial(): number {
  return ++lastSerial;
}
