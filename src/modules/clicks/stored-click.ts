/**
 * How either engine stores a raw click, said once for both (sqlite/ and postgres/): its flags, its
 * visitor's bits, the clicks a sealed segment packs, the target it points to.
 */

/** The flags of a stored click. */
export const FLAG_BOT = 1;
export const FLAG_FIRST_OF_DAY = 2;
/** Counted but not profiled (capture/privacy.ts): no dimension, no visitor. */
export const FLAG_OPTED_OUT = 4;

/** The flags of a click as either engine stores it. */
export function clickFlags(c: { bot: boolean; optedOut?: boolean }, firstOfDay: boolean): number {
  return (c.bot ? FLAG_BOT : 0) | (firstOfDay ? FLAG_FIRST_OF_DAY : 0) | (c.optedOut ? FLAG_OPTED_OUT : 0);
}

/**
 * The stored visitor: the first 64 bits of the visitor hash (16 or more hex characters) as a
 * signed integer, which is what an SQLite INTEGER holds.
 */
export function visitorBits(hash: string): bigint {
  // An opted-out click has no visitor hash (never computed): stored as 0.
  if (hash === '') return 0n;
  return BigInt.asIntN(64, BigInt(`0x${hash.slice(0, 16)}`));
}

/**
 * Clicks per segment, at least. A larger segment packs a link's clicks into fewer, larger
 * blocks (less overhead per click) but leaves a longer tail for every list page to scan.
 */
export const SEAL_ROWS = 32_768;

/** What a click points to: its link, variant, code, destination, params and rule. */
export interface ClickTarget {
  linkId: string;
  /** null when the code matched no variant (stored as ''). */
  variantId: string | null;
  code: string | null;
  destination: string;
  /** The params as JSON text, exactly as the click stored them. */
  params: string;
  /** The index of the link rule that chose the destination, or null (none did). */
  rule: number | null;
}
