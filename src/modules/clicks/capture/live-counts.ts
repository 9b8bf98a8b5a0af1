/**
 * The live counters of the links (record.ts ClickLinks: typed arrays the slug index keeps per
 * link slot) as the click side moves them. A buffered click is counted at once: as human
 * (`humanClicks`) when the redirect decided it (links with a click limit, HEAD, no agent), else
 * as `unsorted`; the flush classifies it (`classifyClick`), moving it from `unsorted` to
 * `humanClicks` or out; a click the full buffer refuses leaves them (`uncount`). Every change
 * the click side makes to them is here, so their invariant (humanClicks = stored humans + the
 * buffered clicks known human; unsorted = the buffered clicks not classified yet) is read in
 * one place. The redirect's own check-and-increment for click limits is countCaptured's rule.
 */
import { isBotAgent } from './bot';
import type { ClickLinks, ClickRecord } from './record';

/** Counts a click the redirect is about to buffer: `bot` as it decided (null: not yet). */
export function countCaptured(links: ClickLinks, slot: number, bot: boolean | null): void {
  if (bot === null) links.unsorted[slot]!++;
  else if (!bot) links.humanClicks[slot]!++;
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
