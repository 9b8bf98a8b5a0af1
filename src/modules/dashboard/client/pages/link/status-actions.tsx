/**
 * Pause, archive and restore, under what a visitor of the short link gets now (the API's
 * availability: an active link past its expiry or its click limit says so) and the way out.
 */
import { useState } from 'preact/hooks';
import { updateLink } from '../../api/links';
import type { Link, LinkStatus } from '../../api/types';
import { LoadFailed } from '../../components/feedback';
import { formatNumber } from '../../lib/format';
import { useAction } from '../../lib/hooks';
import { stateSentences } from '../../lib/link-state';

const ACTIONS: Record<LinkStatus, { to: LinkStatus; label: string }[]> = {
  active: [
    { to: 'paused', label: 'Pause' },
    { to: 'archived', label: 'Archive' },
  ],
  paused: [
    { to: 'active', label: 'Resume' },
    { to: 'archived', label: 'Archive' },
  ],
  archived: [{ to: 'active', label: 'Restore' }],
};

/** Visits its fallback URL answered (the API's fallbackCount): the old link is still in use. */
function fallbackVisits(link: Link): string {
  const n = link.fallbackCount;
  const since =
    link.availability === 'expired'
      ? ' since it expired'
      : link.availability === 'limit'
        ? ' since it reached its click limit'
        : '';
  return `${formatNumber(n)} ${n === 1 ? 'visit' : 'visits'} sent to the fallback${since}`;
}

export function StatusActions({ link, onChanged }: { link: Link; onChanged(link: Link): void }) {
  const [busy, setBusy] = useState(false);
  const action = useAction();
  const change = async (status: LinkStatus) => {
    setBusy(true);
    await action.run(async () => onChanged(await updateLink(link.id, { status })));
    setBusy(false);
  };
  return (
    <section class="panel" aria-labelledby="status-title">
      <h2 id="status-title">Status</h2>
      {/* Visitors not redirected is what the person must not miss: it stands out. */}
      <div class={link.availability === 'live' ? 'state' : 'state alert warn'}>
        {stateSentences(link).map((sentence) => (
          <p key={sentence}>{sentence}</p>
        ))}
      </div>
      {link.fallbackCount > 0 && <p class="hint">{fallbackVisits(link)}</p>}
      {action.error && <LoadFailed error={action.error} />}
      <div class="actions start">
        {ACTIONS[link.status].map((action) => (
          <button
            key={action.to}
            type="button"
            class="button secondary"
            disabled={busy}
            onClick={() => change(action.to)}
          >
            {action.label}
          </button>
        ))}
      </div>
    </section>
  );
}
