/**
 * Reads a social-preview page as a crawler does: parsed by a real HTML tokenizer (Bun's
 * HTMLRewriter, lol-html), then its tags' values with character references decoded. A value
 * that was not escaped breaks the parse (a `"` ends the attribute early, a `<` opens a tag), so
 * it comes back different from what was stored.
 */

export interface ParsedPreview {
  title: string;
  /** `property` or `name` of each <meta> with a content, to its decoded content, in page order. */
  meta: [string, string][];
  /** Each <a>'s decoded href and text. */
  links: { href: string; text: string }[];
  h1: string;
  paragraphs: string[];
  /** Every element name in the page, in order (what the parser saw). */
  elements: string[];
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function decodeReferences(text: string): string {
  return text.replace(/&(?:#(\d+)|#x([0-9a-f]+)|([a-z]+));/gi, (all, dec, hex, name) =>
    dec !== undefined
      ? String.fromCodePoint(Number(dec))
      : hex !== undefined
        ? String.fromCodePoint(Number.parseInt(hex, 16))
        : (NAMED[name] ?? all),
  );
}

/** The decoded text of each element `selector` matches, in page order. */
function texts(rewriter: HTMLRewriter, selector: string, into: string[]): HTMLRewriter {
  let text = '';
  return rewriter.on(selector, {
    element: (e) => {
      text = '';
      e.onEndTag(() => void into.push(decodeReferences(text)));
    },
    text: (chunk) => {
      text += chunk.text;
    },
  });
}

export async function parsePreview(html: string): Promise<ParsedPreview> {
  const meta: [string, string][] = [];
  const elements: string[] = [];
  const hrefs: string[] = [];
  const titles: string[] = [];
  const h1s: string[] = [];
  const paragraphs: string[] = [];
  const anchors: string[] = [];
  let rewriter = new HTMLRewriter()
    .on('*', { element: (e) => void elements.push(e.tagName) })
    .on('meta', {
      element: (e) => {
        const key = e.getAttribute('property') ?? e.getAttribute('name');
        const content = e.getAttribute('content');
        if (key !== null && content !== null) meta.push([key, decodeReferences(content)]);
      },
    })
    .on('a', { element: (e) => void hrefs.push(decodeReferences(e.getAttribute('href') ?? '')) });
  rewriter = texts(texts(texts(texts(rewriter, 'title', titles), 'h1', h1s), 'p', paragraphs), 'a', anchors);
  await rewriter.transform(new Response(html)).text();
  return {
    title: titles.join('|'),
    meta,
    links: hrefs.map((href, i) => ({ href, text: anchors[i]! })),
    h1: h1s.join('|'),
    paragraphs,
    elements,
  };
}
