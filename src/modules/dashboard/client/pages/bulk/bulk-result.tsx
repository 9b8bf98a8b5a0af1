/** What a bulk create made (each new link leads to its page) and which lines it skipped, and why. */
import type { BulkCreated } from '../../api/bulk';
import { ExternalLink } from '../../components/external-link';
import { withoutScheme } from '../../lib/format';
import { useFocusOn } from '../../lib/hooks';
import { linkPagePath } from '../../lib/paths';
import { BulkLines, countsText } from './bulk-lines';

export function BulkResult({ result, onAgain }: { result: BulkCreated; onAgain(): void }) {
  const head = useFocusOn<HTMLHeadingElement>(result);
  return (
    <section aria-labelledby="bulk-result-title" class="stack">
      <h2 id="bulk-result-title" ref={head} tabIndex={-1}>
        {countsText(result.counts) || 'Nothing created'}
      </h2>
      {result.created.length > 0 && (
        <ul class="bulk-lines" aria-label="Created links">
          {result.created.map(({ line, link }) => (
            <li key={link.id} class="bulk-line create">
              <p class="bulk-line-head">
                <span class="hint">Line {line}</span>
                <a href={linkPagePath(link.id)}>{withoutScheme(link.shortUrl)}</a>
              </p>
              {link.title && <p>{link.title}</p>}
              <p class="bulk-line-url">
                <ExternalLink url={link.destination} />
              </p>
            </li>
          ))}
        </ul>
      )}
      {result.skipped.length > 0 && (
        <>
          <h3>Skipped</h3>
          <BulkLines lines={result.skipped} label="Skipped lines" />
        </>
      )}
      <div class="actions start">
        <button type="button" class="button primary" onClick={onAgain}>
          Paste more
        </button>
        <a class="button secondary" href="/app">
          Go to links
        </a>
      </div>
    </section>
  );
}
