/**
 * Bot verdicts (isbot plus our own "no user agent" rule), the counters classifyClick settles,
 * and device/OS/browser from ua-parser-js 1.0.x, on real user agent strings.
 */
import { describe, expect, test } from 'bun:test';
import { isBotAgent } from '../../../src/modules/clicks/capture/bot';
import { classifyClick } from '../../../src/modules/clicks/capture/live-counts';
import type { ClickRecord } from '../../../src/modules/clicks/capture/record';
import { parseAgent } from '../../../src/modules/clicks/enrich/user-agent';
import { clickRecord, type TestTarget, testTarget } from '../../helpers/click-record';

/** Real browsers, each with what ua-parser-js 1.0.41 makes of it. */
const HUMANS = {
  chromeWindows: {
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    facts: { device: 'desktop', os: 'Windows', browser: 'Chrome' },
  },
  firefoxWindows: {
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0',
    facts: { device: 'desktop', os: 'Windows', browser: 'Firefox' },
  },
  firefoxUbuntu: {
    ua: 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
    facts: { device: 'desktop', os: 'Ubuntu', browser: 'Firefox' },
  },
  safariMac: {
    ua: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15',
    facts: { device: 'desktop', os: 'Mac OS', browser: 'Safari' },
  },
  edgeWindows: {
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.80',
    facts: { device: 'desktop', os: 'Windows', browser: 'Edge' },
  },
  iphoneSafari: {
    ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1',
    facts: { device: 'mobile', os: 'iOS', browser: 'Mobile Safari' },
  },
  androidChrome: {
    ua: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36',
    facts: { device: 'mobile', os: 'Android', browser: 'Chrome' },
  },
  ipadSafari: {
    ua: 'Mozilla/5.0 (iPad; CPU OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1',
    facts: { device: 'tablet', os: 'iOS', browser: 'Mobile Safari' },
  },
} as const;

/** Tools, crawlers and link-preview fetchers. */
const BOTS = {
  curl: 'curl/8.5.0',
  wget: 'Wget/1.21.4',
  pythonRequests: 'python-requests/2.31.0',
  goHttpClient: 'Go-http-client/1.1',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  googlebotSmartphone:
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  bingbot: 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  facebookexternalhit: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  twitterbot: 'Twitterbot/1.0',
  slackbot: 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
  whatsapp: 'WhatsApp/2.23.20.0',
  discordbot: 'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
  telegrambot: 'TelegramBot (like TwitterBot)',
  linkedinbot: 'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
  headlessChrome:
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/124.0.0.0 Safari/537.36',
} as const;

function target(counters = { humanClicks: 10, unsorted: 1 }): TestTarget {
  return testTarget({ linkId: 'lnk_bot', ...counters });
}

function record(over: Partial<ClickRecord> = {}, on: TestTarget = target()): ClickRecord & { on: TestTarget } {
  return { ...clickRecord(on, { userAgent: HUMANS.chromeWindows.ua, ...over }), on };
}

describe('isBotAgent', () => {
  for (const [name, { ua }] of Object.entries(HUMANS)) {
    test(`human: ${name}`, () => {
      expect(isBotAgent(ua)).toBe(false);
      // The cached verdict answers the same.
      expect(isBotAgent(ua)).toBe(false);
    });
  }

  for (const [name, ua] of Object.entries(BOTS)) {
    test(`bot: ${name}`, () => {
      expect(isBotAgent(ua)).toBe(true);
      expect(isBotAgent(ua)).toBe(true);
    });
  }

  test('no user agent is a bot (isbot alone says false for an empty one)', () => {
    expect(isBotAgent(null)).toBe(true);
    expect(isBotAgent('')).toBe(true);
    expect(isBotAgent(' ')).toBe(true);
    expect(isBotAgent('  \t ')).toBe(true);
  });
});

describe('classifyClick', () => {
  test('a human click leaves unsorted and joins humanClicks', () => {
    const r = record();
    expect(classifyClick(r)).toBe(false);
    expect(r.bot).toBe(false);
    expect(r.on.counters).toEqual({ humanClicks: 11, unsorted: 0 });
  });

  test('a HEAD request is a bot even with a browser user agent', () => {
    const r = record({ head: true, userAgent: HUMANS.safariMac.ua });
    expect(classifyClick(r)).toBe(true);
    expect(r.bot).toBe(true);
    expect(r.on.counters).toEqual({ humanClicks: 10, unsorted: 0 });
  });

  test('a crawler leaves unsorted without joining humanClicks', () => {
    const r = record({ userAgent: BOTS.googlebot });
    expect(classifyClick(r)).toBe(true);
    expect(r.on.counters).toEqual({ humanClicks: 10, unsorted: 0 });
  });

  test('no user agent (or only spaces) is a bot', () => {
    for (const userAgent of [null, '', '   ']) {
      const r = record({ userAgent });
      expect(classifyClick(r)).toBe(true);
      expect(r.on.counters).toEqual({ humanClicks: 10, unsorted: 0 });
    }
  });

  test('idempotent: a second call returns the same verdict and changes nothing', () => {
    const human = record();
    const bot = record({ userAgent: BOTS.curl });
    for (const r of [human, bot]) {
      const first = classifyClick(r);
      const after = { ...r.on.counters };
      expect(classifyClick(r)).toBe(first);
      expect(classifyClick(r)).toBe(first);
      expect(r.on.counters).toEqual(after);
      expect(r.bot).toBe(first);
    }
    expect(human.on.counters).toEqual({ humanClicks: 11, unsorted: 0 });
    expect(bot.on.counters).toEqual({ humanClicks: 10, unsorted: 0 });
  });

  test('a record already classified on the hot path is left as it is', () => {
    // A link with a click limit classifies and counts the human at redirect time.
    const on = target({ humanClicks: 3, unsorted: 0 });
    const human = record({ bot: false, userAgent: BOTS.curl }, on);
    expect(classifyClick(human)).toBe(false);
    const bot = record({ bot: true, userAgent: HUMANS.chromeWindows.ua }, on);
    expect(classifyClick(bot)).toBe(true);
    expect(on.counters).toEqual({ humanClicks: 3, unsorted: 0 });
  });

  test('clicks sharing one link settle the shared counters one by one', () => {
    const on = target({ humanClicks: 0, unsorted: 4 });
    const agents = [HUMANS.iphoneSafari.ua, BOTS.slackbot, HUMANS.androidChrome.ua, null];
    const verdicts = agents.map((userAgent) => classifyClick(record({ userAgent }, on)));
    expect(verdicts).toEqual([false, true, false, true]);
    expect(on.counters).toEqual({ humanClicks: 2, unsorted: 0 });
  });
});

describe('parseAgent', () => {
  for (const [name, { ua, facts }] of Object.entries(HUMANS)) {
    test(`${name}: ${facts.device} / ${facts.os} / ${facts.browser}`, () => {
      expect(parseAgent(ua)).toEqual(facts);
    });
  }

  test('tools and crawlers without an OS or browser give nulls, not "desktop"', () => {
    for (const ua of [
      BOTS.curl,
      BOTS.wget,
      BOTS.pythonRequests,
      BOTS.goHttpClient,
      BOTS.googlebot,
      BOTS.facebookexternalhit,
      BOTS.twitterbot,
    ]) {
      expect(parseAgent(ua)).toEqual({ device: null, os: null, browser: null });
    }
  });

  test('agents that look like browsers parse like browsers (the bot flag tells them apart)', () => {
    expect(parseAgent(BOTS.headlessChrome)).toEqual({ device: 'desktop', os: 'Linux', browser: 'Chrome Headless' });
    expect(parseAgent(BOTS.googlebotSmartphone)).toEqual({ device: 'mobile', os: 'Android', browser: 'Chrome' });
  });

  test('no user agent gives all nulls', () => {
    expect(parseAgent(null)).toEqual({ device: null, os: null, browser: null });
    expect(parseAgent('')).toEqual({ device: null, os: null, browser: null });
  });

  test('the same string twice returns the same cached, frozen object', () => {
    const ua = `${HUMANS.androidChrome.ua} cache-probe`;
    const first = parseAgent(ua);
    expect(parseAgent(ua)).toBe(first);
    // An equal string built separately hits the same entry.
    expect(parseAgent(`${HUMANS.androidChrome.ua} cache-${'probe'}`)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(parseAgent(HUMANS.iphoneSafari.ua)).not.toBe(first);
  });
});
