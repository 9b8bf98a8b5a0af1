/**
 * The names link rules compare with what the statistics record (clicks/enrich/user-agent.ts,
 * ua-parser-js 1.0): the device types, a closed list the API checks, and the operating systems
 * and browsers most traffic shows, which the dashboard offers (a rule may name any other). Pure
 * data, read by the server and the dashboard alike.
 */

/** ua-parser's device types, and `desktop` for agents that name none but an OS or browser. */
export const RULE_DEVICES = ['desktop', 'mobile', 'tablet', 'smarttv', 'console', 'wearable', 'embedded'] as const;

/** Operating systems as the os breakdown names them. */
export const KNOWN_OS = ['iOS', 'Android', 'Windows', 'Mac OS', 'Linux', 'Ubuntu', 'Chromium OS', 'HarmonyOS'] as const;

/** Browsers as the browser breakdown names them (an iPhone's or iPad's Safari is `Mobile Safari`). */
export const KNOWN_BROWSERS = [
  'Chrome',
  'Safari',
  'Mobile Safari',
  'Firefox',
  'Edge',
  'Opera',
  'Samsung Internet',
  'Chrome WebView',
  'Facebook',
  'Instagram',
  'Yandex',
  'MIUI Browser',
] as const;

/** Referrer hosts that stand for another: X (Twitter) sends its visitors through its t.co links. */
export const REFERRER_ALIASES: Readonly<Record<string, readonly string[]>> = {
  'twitter.com': ['t.co'],
  'x.com': ['t.co'],
};
