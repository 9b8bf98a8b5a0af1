/** Small text checks shared by validation code. */

// C0 controls, DEL and C1 controls: none of them may reach a header, a URL or a page.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function hasControlChars(text: string): boolean {
  return CONTROL.test(text);
}

/**
 * Text for a terminal line: each control character written as its `\xNN` escape, so text a
 * source or a file holds (an escape sequence, a bell, a carriage return) is shown, never obeyed.
 */
export function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * Text made safe inside HTML: both as element text and inside a quoted attribute value (`&`,
 * `<`, `>`, `"` and `'` become character references). It does not make a URL safe to follow:
 * only ever put http(s) URLs in an href.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
