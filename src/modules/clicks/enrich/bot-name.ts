/**
 * The name a bot hit is shown under in the browser breakdown (docs/behaviour.md, "What a click
 * records"): the bot's own name where its user agent gives one (`Googlebot`, `bingbot`,
 * `curl`, `python-requests`, `facebookexternalhit`, ...), else `Bot`. ua-parser-js names
 * browsers, not crawlers and tools: without this every bot was an unknown browser.
 *
 * Names are taken from the user agent, never made up, in this order:
 * 0. a social-preview crawler's listed name (capture/preview-crawlers.ts), so each is shown under
 *    one name whatever its agent's shape (`http.rb/5.1 (Mastodon/4.2 ...)` is `Mastodon`);
 * 1. its leading product token (`curl/8.5.0`, `facebookexternalhit/1.1`), unless that is the
 *    `Mozilla/` or `Opera/` every browser-like agent starts with;
 * 2. the name after `compatible;` (`(compatible; Googlebot/2.1; +http://...)`);
 * 3. a word ending in bot, crawler or spider (`Slackbot-LinkExpanding 1.0`, `TelegramBot`);
 * 4. a product token that alone makes an ordinary browser agent a bot to isbot
 *    (`HeadlessChrome/124.0`).
 * A name is 1 to 40 letters, digits, `.`, `_` or `-` starting with a letter, so it is safe in
 * HTML, CSV and the rollups' value dictionary. Cached by user agent, like the other agent facts.
 */
import { isbot } from 'isbot';
import { BoundedCache } from '../../../lib/bounded-cache';
import { previewCrawlerName } from '../capture/preview-crawlers';

/** What a bot hit whose agent names nothing (none, blank, or a browser's sent with HEAD) is shown as. */
export const UNNAMED_BOT = 'Bot';

const NAME = '[A-Za-z][A-Za-z0-9._-]{0,39}';
const LEADING = new RegExp(`^(${NAME})/`);
const COMPATIBLE = new RegExp(`compatible; ?(${NAME})[/;) ]`);
const BOT_WORD = /([A-Za-z][A-Za-z0-9_-]{0,30}?(?:bot|crawler|spider))(?![A-Za-z0-9])/i;
const PRODUCT = new RegExp(`(?:^|[\\s;(])(${NAME})/\\d`, 'g');
/** Names every browser's agent carries: never a bot's own. */
const BROWSER_WORDS = new Set(['mozilla', 'opera', 'msie']);
/** An ordinary browser's agent: a token that makes isbot flag it once appended is a bot's name. */
const BROWSER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

const names = new BoundedCache<string, string>(20_000);

function ownName(name: string | undefined): string | null {
  return name !== undefined && !BROWSER_WORDS.has(name.toLowerCase()) ? name : null;
}

function findName(userAgent: string): string {
  const named =
    previewCrawlerName(userAgent) ??
    ownName(LEADING.exec(userAgent)?.[1]) ??
    ownName(COMPATIBLE.exec(userAgent)?.[1]) ??
    ownName(BOT_WORD.exec(userAgent)?.[1]);
  if (named !== null) return named;
  for (const m of userAgent.matchAll(PRODUCT)) {
    const name = m[1]!;
    if (ownName(name) !== null && isbot(`${BROWSER_AGENT} ${name}/1.0`)) return name;
  }
  return UNNAMED_BOT;
}

/** The name of the bot behind a user agent, or `Bot`. */
export function botName(userAgent: string | null): string {
  if (!userAgent || userAgent.trim() === '') return UNNAMED_BOT;
  let name = names.get(userAgent);
  if (name === undefined) {
    name = findName(userAgent);
    names.set(userAgent, name);
  }
  return name;
}
