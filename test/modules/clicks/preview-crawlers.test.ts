/**
 * The social-preview crawler list: each listed crawler, on its real agents, is a preview crawler,
 * a bot, and named as listed; browsers (in-app ones too), search engines and tools are not
 * preview crawlers.
 */
import { describe, expect, test } from 'bun:test';
import { isBotAgent, isPreviewCrawler } from '../../../src/modules/clicks/capture/bot';
import { PREVIEW_CRAWLERS } from '../../../src/modules/clicks/capture/preview-crawlers';
import { botName } from '../../../src/modules/clicks/enrich/bot-name';
import { PREVIEW_AGENTS } from '../../helpers/preview-agents';

/** People (browsers, the apps' own in-app browsers), search engines and tools: never preview crawlers. */
const NOT_PREVIEW: string[] = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [Pinterest/iOS]',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/440.0.0.32.107;FBBV/553032040]',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]/9.29.6',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36 Telegram-Android/10.14.5 (Google Pixel 8; Android 14; SDK 34; HIGH)',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
  'curl/8.5.0',
  'Slack-ImgProxy (+https://api.slack.com/robots)',
  '',
  '   ',
];

describe('the preview crawler list', () => {
  test('every listed crawler has real agents here, and every agent here is listed', () => {
    expect(Object.keys(PREVIEW_AGENTS).sort()).toEqual(PREVIEW_CRAWLERS.map((c) => c.name).sort());
  });

  for (const [name, agents] of Object.entries(PREVIEW_AGENTS))
    test(`${name}: a preview crawler, a bot, named ${name}`, () => {
      for (const ua of agents) {
        const facts = { ua, preview: isPreviewCrawler(ua), bot: isBotAgent(ua), name: botName(ua) };
        expect(facts).toEqual({ ua, preview: true, bot: true, name });
        // Cached by agent: the same answers again.
        expect([isPreviewCrawler(ua), isBotAgent(ua), botName(ua)]).toEqual([true, true, name]);
      }
    });

  test('browsers, in-app browsers, search engines and tools are not preview crawlers', () => {
    for (const ua of NOT_PREVIEW) expect({ ua, preview: isPreviewCrawler(ua) }).toEqual({ ua, preview: false });
    expect(isPreviewCrawler(null)).toBe(false);
  });

  test('a listed name is 1 to 40 letters, digits, ".", "_" or "-", starting with a letter', () => {
    for (const { name } of PREVIEW_CRAWLERS) expect(name).toMatch(/^[A-Za-z][A-Za-z0-9._-]{0,39}$/);
  });
});
