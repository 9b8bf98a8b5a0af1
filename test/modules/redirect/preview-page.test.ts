/**
 * The social-preview page on its own: its tags, the card type with and without an image, and
 * every value escaped, read back by a real HTML parser.
 */
import { describe, expect, test } from 'bun:test';
import { previewHtml, previewResponse } from '../../../src/modules/redirect/preview-page';
import { parsePreview } from '../../helpers/preview-page';

const SHORT = 'https://sl.test/launch';
const TO = 'https://example.com/landing?utm_source=x&b=2';

describe('previewHtml', () => {
  test('title, description and image: Open Graph, a large-image card, and a link to the destination', async () => {
    const html = previewHtml(
      { title: 'Launch day', description: 'All about it', image: 'https://cdn.example.com/card.png' },
      SHORT,
      TO,
    );
    const page = await parsePreview(html);
    expect(page).toEqual({
      title: 'Launch day',
      meta: [
        ['description', 'All about it'],
        ['og:type', 'website'],
        ['og:url', SHORT],
        ['og:title', 'Launch day'],
        ['og:description', 'All about it'],
        ['og:image', 'https://cdn.example.com/card.png'],
        ['twitter:card', 'summary_large_image'],
        ['twitter:title', 'Launch day'],
        ['twitter:description', 'All about it'],
        ['twitter:image', 'https://cdn.example.com/card.png'],
      ],
      links: [{ href: TO, text: TO }],
      h1: 'Launch day',
      paragraphs: ['All about it', TO],
      elements: ['html', 'head', 'meta', 'title', ...Array(10).fill('meta'), 'body', 'h1', 'p', 'p', 'a'],
    });
    // No script, no style, no refresh: nothing runs and nothing moves on.
    expect(html).not.toMatch(/<script|<style|http-equiv/i);
    expect(html).toStartWith('<!doctype html>\n');
  });

  test('a title alone: a summary card, no description or image tags', async () => {
    const page = await parsePreview(previewHtml({ title: 'Just a title' }, SHORT, TO));
    expect(page.meta).toEqual([
      ['og:type', 'website'],
      ['og:url', SHORT],
      ['og:title', 'Just a title'],
      ['twitter:card', 'summary'],
      ['twitter:title', 'Just a title'],
    ]);
    expect([page.title, page.h1, page.paragraphs, page.links]).toEqual([
      'Just a title',
      'Just a title',
      [TO],
      [{ href: TO, text: TO }],
    ]);
  });

  test('every value is escaped: quotes, <, >, & and markup come back as written, and add no element', async () => {
    const title = `"Hi" <script>alert('t')</script> & <b>bold</b> &amp; done`;
    const description = `'); x="1" onload="alert(1)" <img src=x onerror=alert(2)> &lt;`;
    const image = `javascript:alert("i")"><script>alert(3)</script>`;
    const to = `https://example.com/?q="><script>alert(4)</script>&x='y'`;
    const html = previewHtml({ title, description, image }, SHORT, to);
    const page = await parsePreview(html);
    expect(page.title).toBe(title);
    expect(page.h1).toBe(title);
    expect(page.paragraphs).toEqual([description, to]);
    expect(page.links).toEqual([{ href: to, text: to }]);
    expect(page.meta.filter(([key]) => key.endsWith('title')).map(([, v]) => v)).toEqual([title, title]);
    expect(page.meta.filter(([key]) => key.endsWith('description')).map(([, v]) => v)).toEqual([
      description,
      description,
      description,
    ]);
    expect(page.meta.filter(([key]) => key.endsWith('image')).map(([, v]) => v)).toEqual([image, image]);
    // The same elements as a page of plain values: nothing the values held became markup.
    expect(page.elements).toEqual([
      'html',
      'head',
      'meta',
      'title',
      ...Array(10).fill('meta'),
      'body',
      'h1',
      'p',
      'p',
      'a',
    ]);
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('"alert');
  });
});

describe('previewResponse', () => {
  test('200 HTML with the short site CSP, private, varying by User-Agent; HEAD has the headers and no body', async () => {
    const preview = { title: 'T', description: 'D' };
    const get = previewResponse(preview, SHORT, TO, false);
    const body = await get.text();
    expect([get.status, body]).toEqual([200, previewHtml(preview, SHORT, TO)]);
    const head = previewResponse(preview, SHORT, TO, true);
    expect([head.status, await head.text()]).toEqual([200, '']);
    for (const res of [get, head])
      expect(Object.fromEntries([...res.headers].filter(([k]) => k !== 'content-length'))).toEqual({
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'private, max-age=0',
        vary: 'User-Agent',
        'content-security-policy':
          "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'same-origin',
      });
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
  });
});
