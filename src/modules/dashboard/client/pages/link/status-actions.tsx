/** Pause, archive and restore: what each state means for the short link, and the way out of it. */
import { useState } from 'preact/hooks';
import { updateLink } from '../../api/links';
import type { Link, LinkStatus } from '../../api/types';
import { LoadFailed } from '../../components/feedback';
import { useAction } from '../../lib/hooks';

const MEANING: Record<LinkStatus, string> = {
  active: 'Active: the short link redirects and counts clicks.',
  paused: 'Paused: the short link answers "not found" and records nothing until it is resumed.',
  archived: 'Archived: hidden from the default list; the short link keeps redirecting and keeps its history.',
};

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
      <p>{MEANING[link.status]}</p>
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
