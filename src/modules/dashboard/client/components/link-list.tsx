/** Rows of the links list: the short link (to its page), what it points at, and its numbers. */
import type { Link } from '../api/types';
import { formatDate, formatNumber, withoutScheme } from '../lib/format';
import { linkPagePath } from '../lib/paths';
import { CopyButton } from './copy-button';
import { ExternalLink } from './external-link';
import { StatusBadge } from './status-badge';

export function LinkList({ links }: { links: Link[] }) {
  return (
    <ul class="link-list">
      {links.map((link) => (
        <li key={link.id} class="link-item">
          <div class="link-main">
            <p class="link-title">
              <a href={linkPagePath(link.id)}>{withoutScheme(link.shortUrl)}</a>
              <StatusBadge status={link.status} />
            </p>
            {link.title && <p class="link-name">{link.title}</p>}
            <p class="link-destination">
              <ExternalLink url={link.destination} />
            </p>
            {link.tags.length > 0 && (
              <ul class="tags" aria-label="Tags">
                {link.tags.map((tag) => (
                  <li key={tag}>{tag}</li>
                ))}
              </ul>
            )}
          </div>
          <div class="link-side">
            <p class="link-clicks">
              <strong>{formatNumber(link.clickCount)}</strong> {link.clickCount === 1 ? 'click' : 'clicks'}
            </p>
            <p class="hint">{formatDate(link.createdAt)}</p>
            <CopyButton text={link.shortUrl} what={`short link ${withoutScheme(link.shortUrl)}`} />
          </div>
        </li>
      ))}
    </ul>
  );
}
