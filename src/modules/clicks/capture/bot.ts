/**
 * Bot rule (docs/behaviour.md, "Humans and bots"): no user agent, one `isbot` recognises, one of
 * the social-preview crawlers (preview-crawlers.ts: each of them is a bot, whatever isbot's list
 * says), or HEAD. Verdicts are cached by user agent string, so a repeated agent costs one Map
 * lookup, also when the redirect asks whether it is a preview crawler.
 */
import { isbot } from 'isbot';
import { BoundedCache } from '../../../lib/bounded-cache';
import { PREVIEW_CRAWLER } from './preview-crawlers';

const HUMAN = 0;
const BOT = 1;
const PREVIEW = 2;

const verdicts = new BoundedCache<string, number>(20_000);

/** HUMAN, BOT or PREVIEW for a non-blank agent. */
function verdictOf(userAgent: string): number {
  let verdict = verdicts.get(userAgent);
  if (verdict === undefined) {
    verdict = PREVIEW_CRAWLER.test(userAgent) ? PREVIEW : isbot(userAgent) ? BOT : HUMAN;
    verdicts.set(userAgent, verdict);
  }
  return verdict;
}

export function isBotAgent(userAgent: string | null): boolean {
  if (!userAgent || userAgent.trim() === '') return true;
  return verdictOf(userAgent) !== HUMAN;
}

/** Whether the agent is a social-preview crawler (and so a bot): the preview page is for it. */
export function isPreviewCrawler(userAgent: string | null): boolean {
  return userAgent !== null && userAgent !== '' && verdictOf(userAgent) === PREVIEW;
}
