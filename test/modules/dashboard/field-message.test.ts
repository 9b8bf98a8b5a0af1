/** The API's error messages as the dashboard's forms show them (lib/field-message.ts). */
import { describe, expect, test } from 'bun:test';
import { fieldMessage } from '../../../src/modules/dashboard/client/lib/field-message';

describe('field messages', () => {
  test("a rule's refused value says what the condition takes", () => {
    expect(fieldMessage('rules[1].when.country', 'rules[1].when.country: "Germany" is not a valid value')).toBe(
      '"Germany" is not a country code: use two-letter codes such as DE, FR or US.',
    );
    expect(fieldMessage('rules[0].when.language', 'rules[0].when.language: "en_US" is not a valid value')).toBe(
      '"en_US" is not a language code: use codes such as en, fr or de.',
    );
    expect(
      fieldMessage('rules[0].when.referrer', 'rules[0].when.referrer: "https://x.com/a" is not a valid value'),
    ).toBe(
      '"https://x.com/a" is not a host name: use host names such as news.example.com, without https:// or a path.',
    );
    expect(
      fieldMessage('rules[0].when.device', 'rules[0].when.device holds an empty value or control characters'),
    ).toBe('Leave no empty value between commas (and no invisible control characters).');
    expect(fieldMessage('rules[0].when.before', 'rules[0].when.before must be later than after')).toBe(
      'Must be later than From (UTC).',
    );
  });

  test('JSON words (null, epoch milliseconds, camelCase names) become the form’s words', () => {
    expect(fieldMessage('fallbackUrl', 'fallbackUrl must be an absolute http(s) URL or null')).toBe(
      'Use a full web address such as https://example.com/offer-ended, or leave it empty.',
    );
    expect(fieldMessage('clickLimit', 'clickLimit must be an integer from 1 to 9007199254740991, or null')).toBe(
      'Use a whole number of clicks, 1 or more, or leave it empty.',
    );
    expect(fieldMessage('expiresAt', 'expiresAt must be epoch milliseconds up to the year 9999, or null')).toBe(
      'Pick a date and time (UTC) up to the year 9999, or leave it empty.',
    );
    expect(fieldMessage('password', 'password must be a string of 8 to 128 characters, or null')).toBe(
      'A password is 8 to 128 characters.',
    );
    expect(fieldMessage('preview.image', 'preview.image must be an absolute http(s) URL with a host')).toBe(
      'Use a full web address of the image, such as https://example.com/card.png.',
    );
    expect(fieldMessage('url', 'url must be an absolute http or https URL with a host')).toBe(
      'Use a full web address such as https://example.com/hooks.',
    );
    // An import source's address is not a webhook's.
    expect(fieldMessage('url', 'url must be an absolute http(s) address')).toBe(
      "Use the service's full address, such as https://s.example.com.",
    );
    expect(fieldMessage('url', 'url must be an http(s) address')).toBe(
      "Use the service's full address, such as https://s.example.com.",
    );
    expect(fieldMessage('preview.title', 'preview.title must be 1 to 200 characters')).toBe(
      'Preview heading must be 1 to 200 characters',
    );
    expect(fieldMessage('redirectStatus', 'redirectStatus must be one of 301, 302, 307, 308')).toBe(
      'Redirect status must be one of 301, 302, 307, 308',
    );
    expect(fieldMessage('title', 'title contains control characters')).toBe('Title contains control characters');
    expect(fieldMessage('from', 'from must not be after to')).toBe('Must not be after To (UTC).');
    expect(fieldMessage('text', 'text has no URL: put one URL per line')).toBe('No URL here: put one URL per line.');
    expect(fieldMessage('text', 'text has more than 200 URLs (one per line); send at most 200')).toBe(
      'More than 200 URLs: send at most 200, one per line.',
    );
    // The destination's rules, applied to another address, name that address.
    expect(fieldMessage('fallbackUrl', 'Destination must use http or https, not ftp')).toBe(
      'Fallback address must use http or https, not ftp',
    );
  });

  test('messages written for people, and errors about no field, stay as they are', () => {
    for (const [field, message] of [
      ['destination', 'Destination must use http or https, not ftp'],
      ['password', 'Password must be at least 8 characters'],
      ['slug', '"api" is reserved'],
      [null, 'Too many requests'],
    ] as const) {
      expect(fieldMessage(field, message)).toBe(message);
    }
  });
});
