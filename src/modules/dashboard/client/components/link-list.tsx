/**
 * Rows of the links list: a checkbox to select the link for a bulk action, the short link (to
 * its page), what it points at, and its numbers.
 */
import type { Link } from '../api/types';
import { formatNumber, formatUtc, withoutScheme } from '../lib/format';
import { linkPagePath } from '../lib/paths';
import { CopyButton } from './copy-button';
import { ExternalLink } from './external-link';
import { StatusBadge } from './status-badge';

export interface LinkListProps {
  links: Link[];
  selected(id: string): boolean;
  onToggle(id: string): void;
  /** False for someone who may not change links: no checkboxes, since no bulk action is theirs. */
  selectable?: boolean;
}

export function LinkList({ links, selected, onToggle, selectable = true }: LinkListProps) {
  return (
    <ul class={selectable ? 'link-list' : 'link-list view-only'}>
      {links.map((link) => {
        const short = withoutScheme(link.shortUrl);
        const isSelected = selected(link.id);
        return (
          <li key={link.id} class={`link-item${isSelected ? ' selected' : ''}`}>
            {/* The label is the whole left edge: an easy target on touch screens. */}
            {selectable && (
              <label class="link-check">
                <input type="checkbox" checked={isSelected} onChange={() => onToggle(link.id)} />
                <span class="sr-only">Select {short}</span>
              </label>
            )}
            <div class="link-body">
              <div class="link-main">
                <p class="link-title">
                  <a href={linkPagePath(link.id)}>{short}</a>
                  <StatusBadge link={link} />
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
                <p class="hint">{formatUtc(link.createdAt, 'day')}</p>
                <a class="button small secondary" href={`${linkPagePath(link.id)}/stats`}>
                  Statistics<span class="sr-only"> of {short}</span>
                </a>
                <CopyButton text={link.shortUrl} what={`short link ${short}`} />
              </div>
            </div>
          </li>
        );
      })}
    </ul>
  );
}
