/**
 * The API's error messages in a person's words. The API names its fields as its JSON does
 * ("fallbackUrl must be an absolute http(s) URL or null", `rules[1].when.country: "Germany" is
 * not a valid value`); a form shows the message under the field it names, where that name means
 * nothing and a JSON null is "leave it empty". Every failed call passes through here once
 * (api/client.ts), so every form says the same thing the same way. A message already written
 * for people ("Destination must use http or https, not ftp") is left as it is. DOM-free
 * (unit-tested on its own).
 */

/** Field names as the forms label them, where the API's name is not a word. */
const NAMES: Record<string, string> = {
  projectId: 'Project',
  expiresAt: 'Expiry',
  clickLimit: 'Click limit',
  fallbackUrl: 'Fallback address',
  redirectStatus: 'Redirect status',
  forwardQuery: 'Forward the query',
  'preview.title': 'Preview heading',
  'preview.description': 'Preview description',
  'preview.image': 'Preview image URL',
  url: 'URL',
  currentPassword: 'Current password',
  userAgent: 'User agent',
  ip: 'IP address',
  rootUrl: 'Root URL',
  notFoundUrl: 'Not-found URL',
  expiredUrl: 'Expired URL',
  upstream: 'Old service',
  appleAppSiteAssociation: 'Apple app-site-association',
  assetLinks: 'Android asset links',
};

/** What a rule's list condition takes, said when a value is refused. */
const CONDITION_VALUES: Record<string, { what: string; how: string }> = {
  country: { what: 'a country code', how: 'use two-letter codes such as DE, FR or US' },
  language: { what: 'a language code', how: 'use codes such as en, fr or de' },
  referrer: { what: 'a host name', how: 'use host names such as news.example.com, without https:// or a path' },
};

/** Messages for which a better sentence is known: the field's last name, the API's words, ours. */
const REWRITES: [field: string, api: RegExp, human: string][] = [
  ['expiresAt', /must be in the future/, 'Pick a time in the future, or leave it empty.'],
  ['expiresAt', /epoch milliseconds/, 'Pick a date and time (UTC) up to the year 9999, or leave it empty.'],
  ['clickLimit', /must be an integer/, 'Use a whole number of clicks, 1 or more, or leave it empty.'],
  [
    'fallbackUrl',
    /must be an absolute http/,
    'Use a full web address such as https://example.com/offer-ended, or leave it empty.',
  ],
  ['image', /must be an absolute http/, 'Use a full web address of the image, such as https://example.com/card.png.'],
  // A webhook's URL ("... URL"); an import source's address ("... address") has its own words.
  ['url', /must be an absolute http.*URL/, 'Use a full web address such as https://example.com/hooks.'],
  ['url', /must be an (absolute )?http\(s\) address/, "Use the service's full address, such as https://s.example.com."],
  ['password', /must be a string of (\d+) to (\d+) characters/, 'A password is $1 to $2 characters.'],
  ['before', /must be later than after/, 'Must be later than From (UTC).'],
  ['from', /must not be after to/, 'Must not be after To (UTC).'],
  ['text', /has no URL/, 'No URL here: put one URL per line.'],
  ['text', /has more than (\d+) URLs/, 'More than $1 URLs: send at most $1, one per line.'],
  ['after', /epoch milliseconds/, 'Pick a date and time (UTC) up to the year 9999.'],
  ['before', /epoch milliseconds/, 'Pick a date and time (UTC) up to the year 9999.'],
];

/** "rules[1].when.country" -> "country"; "preview.image" -> "image". */
const lastName = (field: string) => field.slice(field.lastIndexOf('.') + 1);

/** The name a person reads for an API field: the form's label, else its words ("forwardQuery" -> "Forward query"). */
function nameOf(field: string): string {
  const named = NAMES[field] ?? NAMES[lastName(field)];
  if (named) return named;
  const words = lastName(field)
    .replace(/\[\d+\]/g, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The message to show for an error about `field` (null: about no field). */
export function fieldMessage(field: string | null, message: string): string {
  if (field === null) return message;
  const last = lastName(field);
  const refused = /: "(.*)" is not a valid value$/.exec(message);
  if (refused) {
    const condition = CONDITION_VALUES[last];
    return condition
      ? `"${refused[1]}" is not ${condition.what}: ${condition.how}.`
      : `"${refused[1]}" is not a valid value.`;
  }
  if (/holds an empty value or control characters$/.test(message)) {
    return 'Leave no empty value between commas (and no invisible control characters).';
  }
  for (const [name, api, human] of REWRITES) {
    const found = name === last ? api.exec(message) : null;
    if (found) return human.replace(/\$(\d)/g, (_, n: string) => found[Number(n)] ?? '');
  }
  // The API checks every address with the destination's rules, and their words name it.
  if (field !== 'destination' && message.startsWith('Destination ')) return `${nameOf(field)}${message.slice(11)}`;
  // The API's own name for the field leads the sentence: the person's name for it instead.
  if (message.startsWith(`${field} `)) return `${nameOf(field)}${message.slice(field.length)}`;
  if (message.startsWith(`${last} `)) return `${nameOf(field)}${message.slice(last.length)}`;
  return message;
}
