/**
 * Bot rule (docs/behaviour.md, "Humans and bots"): no user agent, one `isbot` recognises, or HEAD.
 * Verdicts are cached by user agent string, so a repeated agent costs one Map lookup.
 */
import { isbot } from 'isbot';
import { BoundedCache } from '../../../lib/bounded-cache';

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
