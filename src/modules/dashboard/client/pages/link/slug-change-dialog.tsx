/**
 * Asked before a link's address changes, by a new slug, another domain, or both: the old
 * address answers 404 from that moment (or its domain's not-found page), with nothing to send its
 * visitors on, so whoever has it (a printed QR code, a sent newsletter) is stranded. The dialog
 * names both addresses and how much the old one has been used. The count is the link's own
 * (human clicks and bot hits since it was made): clicks are not kept per address, so after an
 * earlier change it includes the clicks of the addresses before.
 */
import type { Link } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { formatNumber } from '../../lib/format';

const counted = (n: number, one: string, many: string) => `${formatNumber(n)} ${n === 1 ? one : many}`;

/** The link's short URL with `slug` in place of its own (on its own domain). */
export const shortUrlWith = (link: Link, slug: string) =>
  `${link.shortUrl.slice(0, link.shortUrl.length - link.slug.length)}${slug}`;

export interface SlugChangeDialogProps {
  link: Link;
  /** The new short URL, or null while no change waits for an answer. */
  next: { url: string; domain: string } | null;
  onConfirm(): Promise<void>;
  onCancel(): void;
}

export function SlugChangeDialog({ link, next, onConfirm, onCancel }: SlugChangeDialogProps) {
  const bots = link.botCount > 0 ? ` and ${counted(link.botCount, 'bot hit', 'bot hits')}` : '';
  const moves = next !== null && next.domain !== link.domain;
  const variants = link.variants.map((v) => v.url);
  return (
    <ConfirmDialog
      open={next !== null}
      title={moves ? `Move the link to ${next.domain}?` : "Change the short link's address?"}
      confirm={moves ? 'Move link' : 'Change address'}
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
            <code>{next?.url ?? link.shortUrl}</code>
          </dd>
        </div>
      </dl>
      <p>
        The old address <code>{link.shortUrl}</code> stops working the moment you save: it answers as an unknown slug
        (404, or its domain's not-found address), and links already shared with it, and every QR code already printed
        with it, lead nowhere. It has had {counted(link.clickCount, 'click', 'clicks')} so far{bots}.
        {moves && ' The link keeps its clicks and statistics.'}
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
