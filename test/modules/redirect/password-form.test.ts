/**
 * The password form's HTML on its own (redirect/password/form-page.ts): every value written into
 * it is escaped, and each state's message is tied to the field.
 */
import { expect, test } from 'bun:test';
import { formHtml, formResponse } from '../../../src/modules/redirect/password/form-page';
import { expectHtmlSecurityHeaders } from '../../helpers/html';

test('a slug is escaped, never markup', () => {
  const html = formHtml('<img src=x onerror=alert(1)>"&', null);
  expect(html).toContain('<code>/&lt;img src=x onerror=alert(1)&gt;&quot;&amp;</code>');
  expect(html).not.toContain('<img');
});

test('each state: its status, message and Retry-After; the CSP allows exactly the page’s style', async () => {
  const states = [
    [null, 200, null, null],
    [{ kind: 'wrong' }, 401, 'That password is not right. Try again.', null],
    [{ kind: 'unreadable' }, 400, 'The form could not be read. Enter the password again.', null],
    [{ kind: 'tooLarge' }, 413, 'The form could not be read. Enter the password again.', null],
    [{ kind: 'throttled', retryAfter: 600 }, 429, 'Too many wrong passwords. Try again in 10 min.', '600'],
    [{ kind: 'busy', retryAfter: 1 }, 429, 'Too many attempts at once. Try again in a moment.', '1'],
    [
      { kind: 'unavailable', retryAfter: 5 },
      503,
      'The server is too busy to check the password right now. Try again in 5 seconds.',
      '5',
    ],
  ] as const;
  for (const [problem, status, message, retryAfter] of states) {
    const res = formResponse('promo', problem);
    const html = await res.text();
    expect({ status: res.status, retryAfter: res.headers.get('retry-after') }).toEqual({ status, retryAfter });
    expectHtmlSecurityHeaders(res.headers, html, ['http:', 'https:']);
    if (message === null) expect(html).not.toContain('role="alert"');
    else expect(html).toContain(`<p id="password-error" class="error" role="alert">${message}</p>`);
  }
});
