/**
 * The social-preview crawlers (docs/behaviour.md, "Social previews"): the agents that fetch a
 * shared link to draw its card in a chat or a feed. A link with a `preview` answers them its
 * preview page instead of the redirect; each is a bot (bot.ts consults this list as well as
 * isbot), and a bot hit from one is named as listed here (enrich/bot-name.ts).
 *
 * Only agents that exist to draw previews are listed, matched by a token no browser carries:
 * search engines (Googlebot, bingbot, Applebot) index pages and get the redirect, and in-app
 * browsers (`[Pinterest/iOS]`, `FBAN/`, `LinkedInApp`, `Telegram-Android`) are people. Google
 * documents no link-preview agent of its own; iMessage, Threads, LINE and KakaoTalk fetch with
 * `facebookexternalhit` in their agents, Signal with `WhatsApp/2`, Teams with `SkypeUriPreview`.
 *
 * Order matters for the name only: agents that quote another's token come before it
 * (`TelegramBot (like TwitterBot)`, Iframely's `... Twitterbot/1.0`), and iMessage's agent,
 * which carries three, is named by the first listed.
 */

export interface PreviewCrawler {
  /** The name its hits are shown under: a token of its own agent, 1-40 letters, digits, `.`, `_`, `-`. */
  name: string;
  /** A regular expression source, matched case-insensitively anywhere in the user agent. */
  pattern: string;
}

export const PREVIEW_CRAWLERS: readonly PreviewCrawler[] = [
  { name: 'Iframely', pattern: 'Iframely' },
  { name: 'Embedly', pattern: 'Embedly' },
  { name: 'TelegramBot', pattern: 'TelegramBot' },
  { name: 'facebookexternalhit', pattern: 'facebookexternalhit' },
  { name: 'Facebot', pattern: 'Facebot' },
  { name: 'Twitterbot', pattern: 'Twitterbot' },
  { name: 'Slackbot', pattern: 'Slackbot' },
  { name: 'LinkedInBot', pattern: 'LinkedInBot' },
  { name: 'Discordbot', pattern: 'Discordbot' },
  { name: 'WhatsApp', pattern: 'WhatsApp/' },
  { name: 'Mastodon', pattern: 'Mastodon/' },
  { name: 'Pleroma', pattern: '^Pleroma ' },
  { name: 'Akkoma', pattern: '^Akkoma ' },
  { name: 'Misskey', pattern: '^Misskey/' },
  // Both of Pinterest's agents (`Pinterest/0.2`, `Pinterestbot/1.0`) link its bot page; its app does not.
  { name: 'Pinterest', pattern: 'pinterest\\.com/bot' },
  { name: 'SkypeUriPreview', pattern: 'SkypeUriPreview' },
  { name: 'MicrosoftPreview', pattern: 'MicrosoftPreview/' },
  { name: 'redditbot', pattern: 'redditbot' },
  { name: 'vkShare', pattern: 'vkShare' },
  { name: 'OdklBot', pattern: 'OdklBot' },
  { name: 'Bluesky', pattern: 'Bluesky Cardyb' },
  { name: 'Snapchat', pattern: 'Snap URL Preview Service' },
  { name: 'Quora', pattern: 'Quora Link Preview' },
  // Matrix homeservers fetch previews for their clients (Element and others).
  { name: 'Synapse', pattern: '^Synapse \\(bot;' },
];

/** One precompiled test for the whole list. */
export const PREVIEW_CRAWLER = new RegExp(PREVIEW_CRAWLERS.map(({ pattern }) => `(?:${pattern})`).join('|'), 'i');

const EACH = PREVIEW_CRAWLERS.map(({ name, pattern }) => ({ name, test: new RegExp(pattern, 'i') }));

/** The listed name of the preview crawler behind `userAgent`, or null when it is none of them. */
export function previewCrawlerName(userAgent: string): string | null {
  if (!PREVIEW_CRAWLER.test(userAgent)) return null;
  for (const { name, test } of EACH) if (test.test(userAgent)) return name;
  return null;
}
