/**
 * Bot rule (docs/behaviour.md, "Humans and bots"): no user agent, one `isbot` recognises, or HEAD.
 * Verdicts are cached by user agent string, so a repeated agent costs one Map lookup.
 */
import { isbot } from 'isbot';
import { BoundedCache } from '../../lib/bounded-cache';
import type { ClickRecord } from './record';

const verdicts = new BoundedCache<string, boolean>(20_000);

export function isBotAgent(userAgent: string | null): boolean {
  if (!userAgent || userAgent.trim() === '') return true;
  let verdict = verdicts.get(userAgent);
  if (verdict === undefined) {
    verdict = isbot(userAgent);
    verdicts.set(userAgent, verdict);
  }
  return verdict;
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
