/** Real user agents of the social-preview crawlers (src/modules/clicks/capture/preview-crawlers.ts). */

/** Real agents of each listed crawler, by its listed name. */
export const PREVIEW_AGENTS: Record<string, string[]> = {
  Iframely: [
    'Iframely/1.3.1 (+https://iframely.com/docs/about)',
    'Mozilla/5.0 (compatible; Iframely/1.3.1; +https://iframely.com/docs/about) Twitterbot/1.0',
  ],
  Embedly: ['Mozilla/5.0 (compatible; Embedly/0.2; +http://support.embed.ly/)'],
  TelegramBot: ['TelegramBot (like TwitterBot)'],
  facebookexternalhit: [
    'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    // iMessage
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0',
    'facebookexternalhit/1.1;line-poker/1.0',
    'facebookexternalhit/1.1; kakaotalk-scrap/1.0; +https://devtalk.kakao.com/t/scrap/33984',
  ],
  Facebot: ['Facebot', 'Mozilla/5.0 (compatible; Facebot/1.0)'],
  Twitterbot: ['Twitterbot/1.0'],
  Slackbot: [
    'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
    'Slackbot 1.0 (+https://api.slack.com/robots)',
  ],
  LinkedInBot: ['LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)'],
  Discordbot: ['Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)'],
  // The last one is Signal's.
  WhatsApp: ['WhatsApp/2.23.20.0', 'WhatsApp/2.2337.7 N', 'WhatsApp/2'],
  Mastodon: [
    'http.rb/5.1.1 (Mastodon/4.2.0; +https://mastodon.social/)',
    'Mastodon/3.5.3 (http.rb/5.1.0; +https://mastodon.social/) Bot',
  ],
  Pleroma: ['Pleroma 2.5.0; https://pleroma.example <admin@pleroma.example>'],
  Akkoma: ['Akkoma 3.10.0; https://akkoma.example <admin@akkoma.example>'],
  Misskey: ['Misskey/13.14.2 (https://misskey.example)'],
  Pinterest: [
    'Pinterest/0.2 (+https://www.pinterest.com/bot.html)',
    'Mozilla/5.0 (compatible; Pinterestbot/1.0; +https://www.pinterest.com/bot.html)',
  ],
  SkypeUriPreview: ['Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5 skype-url-preview@microsoft.com'],
  MicrosoftPreview: [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.0.0 Safari/537.36 Edg/121.0.0.0 MicrosoftPreview/2.0 +https://aka.ms/MicrosoftPreview',
  ],
  redditbot: ['Mozilla/5.0 (compatible; redditbot/1.0; +http://www.reddit.com/feedback)'],
  vkShare: ['Mozilla/5.0 (compatible; vkShare; +http://vk.com/dev/Share)'],
  OdklBot: ['OdklBot/1.0 (share@odnoklassniki.ru)'],
  Bluesky: ['Mozilla/5.0 (compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app)'],
  Snapchat: ['Mozilla/5.0 (compatible; Snap URL Preview Service; bot; snapchat; https://developers.snap.com/robots)'],
  Quora: ['Quora Link Preview/1.0 (http://www.quora.com)'],
  Synapse: ['Synapse (bot; +https://github.com/matrix-org/synapse)'],
};
