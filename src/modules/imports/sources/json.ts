/**
 * JSON as products really send it. Bitly returns titles holding raw control characters (a tab,
 * a form feed, a NUL copied from a page title), which strict parsers refuse, and a whole page of
 * links would be lost for one title. A control character inside a string is written back as its
 * \u escape, so the title is kept as it was; outside strings JSON's own whitespace is untouched.
 */

export function parseJsonLenient(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the very characters strict JSON refuses
    if (!/[\u0000-\u001f]/.test(text)) throw error;
    return JSON.parse(escapeControlsInStrings(text));
  }
}

function escapeControlsInStrings(text: string): string {
  let out = '';
  let inString = false;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c)
        i++; // a backslash: the next character is escaped, whatever it is
      else if (code === 0x22) inString = false;
      else if (code < 0x20) {
        out += `${text.slice(from, i)}\\u${code.toString(16).padStart(4, '0')}`;
        from = i + 1;
      }
    } else if (code === 0x22) inString = true;
  }
  return out + text.slice(from);
}
