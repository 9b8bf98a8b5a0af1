/**
 * The live counters of the links (record.ts ClickLinks: typed arrays the slug index keeps per
 * link slot) as the click side moves them. A buffered click is counted at once: as human
 * (`humanClicks`) when the redirect decided it (links with a click limit, HEAD, no agent), else
 * as `unsorted`; the flush classifies it (`classifyClick`), moving it from `unsorted` to
 * `humanClicks` or out; a click the full buffer refuses leaves them (`uncount`). Every change
 * anyone makes to them is here, so their invariant (humanClicks = stored humans + the
 * buffered clicks known human; unsorted = the buffered clicks not classified yet) is read in
 * one place: the redirect's capture and its click-limit gate, the slug index as it loads a link
 * or learns of clicks stored late, and the flush (test/architecture/live-counts.test.ts checks
 * that nothing else writes them).
 */
import { isBotAgent } from './bot';
import type { ClickLinks, ClickRecord } from './record';

/** Counts a click the redirect is about to buffer: `bot` as it decided (null: not yet). */
export function countCaptured(links: ClickLinks, slot: number, bot: boolean | null): void {
  if (bot === null) links.unsorted[slot]!++;
  else if (!bot) links.humanClicks[slot]!++;
}

/**
 * A link put in `slot` (a new one, or a slot reused): its stored human clicks, nothing buffered.
 */
export function startCounts(links: ClickLinks, slot: number, storedHumans: number): void {
  links.humanClicks[slot] = storedHumans;
  links.unsorted[slot] = 0;
}

/**
 * The human clicks are at least `humans`: a link read again with more stored than this process
 * counted (other nodes' clicks), or the count the nodes share answering. Never lowered: answers
 * arrive in any order, and one read earlier may have raised it past this one already.
 */
export function raiseHumanClicks(links: ClickLinks, slot: number, humans: number): void {
  if (humans > links.humanClicks[slot]!) links.humanClicks[slot] = humans;
}

/** `humans` human clicks stored after the link was read (folded late): its click limit counts them. */
export function addStoredHumans(links: ClickLinks, slot: number, humans: number): void {
  links.humanClicks[slot]! += humans;
}

/**
 * Decides human or bot for a record not yet classified and settles its link's counters:
 * the click leaves `unsorted` and, when human, joins `humanClicks`. Idempotent.
 */
export function classifyClick(record: ClickRecord): boolean {
  if (record.bot !== null) return record.bot;
  const bot = record.head || isBotAgent(record.userAgent);
  record.bot = bot;
  record.links.unsorted[record.slot]!--;
  if (!bot) record.links.humanClicks[record.slot]!++;
  return bot;
}

/** A click the buffer refused (full): it leaves its link's counters. */
export function uncount(record: ClickRecord): void {
  if (record.bot === null) record.links.unsorted[record.slot]!--;
  else if (!record.bot) record.links.humanClicks[record.slot]!--;
}
