/**
 * Referrer host and traffic type. The rules (also in the README):
 * 1. utm_medium says it first: email/e-mail/newsletter -> email; social/social-media/
 *    social-network/sm -> social; cpc/ppc/paid-search/paidsearch/organic/search -> search.
 * 2. No referrer -> direct.
 * 3. A webmail referrer -> email; a known search engine -> search; a known social network ->
 *    social; any other referrer -> referral. Hosts match on their registrable suffix, so
 *    l.facebook.com counts as facebook.com, and google.de as google.
 */

export type TrafficType = 'direct' | 'search' | 'social' | 'email' | 'referral';

const MEDIUM: Record<string, TrafficType> = {
  email: 'email',
  'e-mail': 'email',
  newsletter: 'email',
  social: 'social',
  'social-media': 'social',
  social_media: 'social',
  'social-network': 'social',
  sm: 'social',
  cpc: 'search',
  ppc: 'search',
  'paid-search': 'search',
  paid_search: 'search',
  paidsearch: 'search',
  organic: 'search',
  search: 'search',
};

const WEBMAIL = ['mail.google.com', 'outlook.live.com', 'outlook.office.com', 'outlook.office365.com', 'mail.yahoo.com', 'mail.proton.me', 'mail.aol.com', 'webmail', 'mail.yandex.ru', 'mail.zoho.com', 'app.fastmail.com', 'mail.gmx.net', 'mail.ru'];

// Matched against the host's labels: "google" matches google.com, google.co.uk, www.google.de.
const SEARCH_NAMES = ['google', 'bing', 'yahoo', 'duckduckgo', 'baidu', 'yandex', 'ecosia', 'qwant', 'startpage', 'brave', 'naver', 'seznam', 'kagi', 'search'];
const SOCIAL_HOSTS = ['facebook.com', 'fb.com', 'fb.me', 'messenger.com', 'instagram.com', 't.co', 'twitter.com', 'x.com', 'linkedin.com', 'lnkd.in', 'reddit.com', 'youtube.com', 'youtu.be', 'tiktok.com', 'pinterest.com', 'threads.net', 'bsky.app', 'mastodon.social', 'tumblr.com', 'vk.com', 'weibo.com', 'snapchat.com', 'quora.com', 'discord.com', 'telegram.org', 't.me', 'whatsapp.com', 'wa.me', 'news.ycombinator.com'];

/** The referrer's host, lower case, without a leading `www.`; null when absent or not a URL. */
export function referrerHost(referrer: string | null): string | null {
  if (!referrer) return null;
  let host: string;
  try {
    const url = new URL(referrer);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    host = url.hostname.toLowerCase();
  } catch {
    return null;
  }
  if (host.startsWith('www.')) host = host.slice(4);
  return host === '' ? null : host;
}

function endsWithHost(host: string, suffix: string): boolean {
  return host === suffix || host.endsWith(`.${suffix}`);
}

function isSearchEngine(host: string): boolean {
  const labels = host.split('.');
  // The engine's name is the label before the public suffix: google.co.uk, search.brave.com.
  return SEARCH_NAMES.some((name) => labels.slice(0, -1).includes(name)) && !host.startsWith('mail.');
}

export function trafficType(refHost: string | null, utmMedium: string | undefined, ownHosts: readonly string[] = []): TrafficType {
  const byMedium = utmMedium ? MEDIUM[utmMedium.trim().toLowerCase()] : undefined;
  if (byMedium) return byMedium;
  if (!refHost || ownHosts.includes(refHost)) return 'direct';
  if (WEBMAIL.some((h) => endsWithHost(refHost, h) || refHost.startsWith(`${h}.`))) return 'email';
  if (SOCIAL_HOSTS.some((h) => endsWithHost(refHost, h))) return 'social';
  if (isSearchEngine(refHost)) return 'search';
  return 'referral';
}
