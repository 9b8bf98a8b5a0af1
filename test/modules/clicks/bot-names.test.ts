/**
 * A bot hit's browser is the bot's name where its user agent gives one, else `Bot`: on real
 * crawler and tool agents, and end to end through the redirect, the flush, the statistics with
 * bots=1 and the raw clicks list. Human clicks keep ua-parser-js's browser.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { botName } from '../../../src/modules/clicks/enrich/bot-name';
import { api, disposeTestApp } from '../../helpers/app';
import { type Ctx, click, createLink, flushOk, setup, UA } from './support';

/** Real agents and the name each is shown under. */
const NAMED: [string, string][] = [
  ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'Googlebot'],
  [
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Googlebot',
  ],
  ['Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)', 'bingbot'],
  ['curl/8.5.0', 'curl'],
  ['Wget/1.21.4', 'Wget'],
  ['python-requests/2.31.0', 'python-requests'],
  ['Go-http-client/1.1', 'Go-http-client'],
  ['facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)', 'facebookexternalhit'],
  ['Twitterbot/1.0', 'Twitterbot'],
  ['Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', 'Slackbot'],
  ['WhatsApp/2.23.20.0', 'WhatsApp'],
  ['Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)', 'Discordbot'],
  ['TelegramBot (like TwitterBot)', 'TelegramBot'],
  ['LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)', 'LinkedInBot'],
  [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/124.0.0.0 Safari/537.36',
    'HeadlessChrome',
  ],
  ['Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.0; +https://openai.com/gptbot)', 'GPTBot'],
];

/** Agents that name no bot: no agent, a blank one, a browser's (a HEAD request), one with nothing to go by. */
const UNNAMED: (string | null)[] = [
  null,
  '',
  '   ',
  UA.chromeWin,
  'Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1; Trident/5.0)',
  'Some random scraper 1.0',
  '<script>alert(1)</script>bot',
];

describe('botName', () => {
  for (const [ua, name] of NAMED)
    test(`${name}: ${ua.slice(0, 50)}`, () => {
      expect(botName(ua)).toBe(name);
      // Cached by agent: the same answer again.
      expect(botName(ua)).toBe(name);
    });

  test('agents that name no bot are grouped as Bot', () => {
    for (const ua of UNNAMED) expect({ ua, name: botName(ua) }).toEqual({ ua, name: 'Bot' });
  });

  test('a name is 1 to 40 letters, digits, ".", "_" or "-", starting with a letter', () => {
    expect(botName(`${'x'.repeat(60)}/1.0`)).toBe('Bot');
    expect(botName(`${'Y'.repeat(40)}/1.0`)).toBe('Y'.repeat(40));
    expect(botName('=cmd|calc/1.0 (compatible; =HYPERLINK/1.0)')).toBe('Bot');
  });
});

describe('through the redirect, the flush and the API', () => {
  let c: Ctx;
  let link: any;

  beforeAll(async () => {
    c = await setup();
    link = await createLink(c, { slug: 'crawled' });
    const hits: [string | null, 'GET' | 'HEAD'][] = [
      [UA.chromeWin, 'GET'],
      [UA.googlebot, 'GET'],
      [UA.googlebot, 'GET'],
      [UA.curl, 'GET'],
      ['python-requests/2.31.0', 'GET'],
      ['Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)', 'GET'],
      [UA.facebook, 'GET'],
      [UA.chromeWin, 'HEAD'],
      [null, 'GET'],
    ];
    for (const [ua, method] of hits) expect(await click(c.t, '/crawled', { ua, method, ip: '192.0.2.7' })).toBe(302);
    await flushOk(c.t);
  });
  afterAll(async () => {
    await disposeTestApp(c.t);
  });

  test('the browser breakdown names each bot with bots=1, and has humans only without', async () => {
    const all = await api(c.t, 'GET', `/links/${link.id}/stats?bots=1`, { key: c.key });
    expect(all.status).toBe(200);
    expect(all.body.breakdowns.browser).toEqual([
      { value: 'Bot', clicks: 2 }, // the HEAD request and the hit without an agent
      { value: 'Googlebot', clicks: 2 },
      { value: 'Chrome', clicks: 1 },
      { value: 'bingbot', clicks: 1 },
      { value: 'curl', clicks: 1 },
      { value: 'facebookexternalhit', clicks: 1 },
      { value: 'python-requests', clicks: 1 },
    ]);
    const humans = await api(c.t, 'GET', `/links/${link.id}/stats`, { key: c.key });
    expect(humans.body.breakdowns.browser).toEqual([{ value: 'Chrome', clicks: 1 }]);
    const workspace = await api(c.t, 'GET', '/workspace/stats?bots=1', { key: c.key });
    expect(workspace.body.breakdowns.browser).toEqual(all.body.breakdowns.browser);
  });

  test('each raw click keeps the name it was recorded with', async () => {
    const res = await api(c.t, 'GET', `/links/${link.id}/clicks?bots=1`, { key: c.key });
    expect(res.status).toBe(200);
    expect(res.body.items.map((x: any) => [x.bot, x.browser]).reverse()).toEqual([
      [false, 'Chrome'],
      [true, 'Googlebot'],
      [true, 'Googlebot'],
      [true, 'curl'],
      [true, 'python-requests'],
      [true, 'bingbot'],
      [true, 'facebookexternalhit'],
      [true, 'Bot'],
      [true, 'Bot'],
    ]);
  });
});
