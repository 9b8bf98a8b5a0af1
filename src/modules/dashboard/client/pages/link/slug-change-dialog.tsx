/**
 * Asked before a link's slug changes: the old address answers 404 from that moment, with
 * nothing to send its visitors on, so whoever has it (a printed QR code, a sent newsletter) is
 * stranded. The dialog names both addresses and how much the old one has been used. The count
 * is the link's own (human clicks and bot hits since it was made): clicks are not kept per slug,
 * so after an earlier rename it includes the clicks of the slugs before.
 */
import type { Link } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { formatNumber } from '../../lib/format';

const counted = (n: number, one: string, many: string) => `${formatNumber(n)} ${n === 1 ? one : many}`;

/** The link's short URL with `slug` in place of its own. */
export const shortUrlWith = (link: Link, slug: string) =>
  `${link.shortUrl.slice(0, link.shortUrl.length - link.slug.length)}${slug}`;

export interface SlugChangeDialogProps {
  link: Link;
  /** The new slug, or null while no change waits for an answer. */
  slug: string | null;
  onConfirm(): Promise<void>;
  onCancel(): void;
}

export function SlugChangeDialog({ link, slug, onConfirm, onCancel }: SlugChangeDialogProps) {
  const bots = link.botCount > 0 ? ` and ${counted(link.botCount, 'bot hit', 'bot hits')}` : '';
  const variants = link.variants.map((v) => v.url);
  return (
    <ConfirmDialog
      open={slug !== null}
      title="Change the short link's address?"
      confirm="Change address"
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <dl class="facts">
        <div>
          <dt>Old address</dt>
          <dd>
            <code>{link.shortUrl}</code>
          </dd>
        </div>
        <div>
          <dt>New address</dt>
          <dd>
            <code>{shortUrlWith(link, slug ?? link.slug)}</code>
          </dd>
        </div>
      </dl>
      <p>
        The old address has had {counted(link.clickCount, 'click', 'clicks')} so far{bots}. From the moment you save, it
        answers 404 (not found): links already shared with it, and every QR code already printed with it, stop working.
      </p>
      {variants.length > 0 && (
        <p>
          Its variant addresses change with it, and the old ones stop working too:{' '}
          {variants.map((url, i) => (
            <span key={url}>
              {i > 0 && ', '}
              <code>{url}</code>
            </span>
          ))}
        </p>
      )}
    </ConfirmDialog>
  );
}
