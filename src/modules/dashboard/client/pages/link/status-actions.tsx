/** Pause, archive and restore: what each state means for the short link, and the way out of it. */
import { useState } from 'preact/hooks';
import { type ApiError, toApiError } from '../../api/client';
import { updateLink } from '../../api/links';
import type { Link, LinkStatus } from '../../api/types';

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
  const [error, setError] = useState<ApiError | null>(null);
  const change = async (status: LinkStatus) => {
    setBusy(true);
    setError(null);
    try {
      onChanged(await updateLink(link.id, { status }));
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="panel" aria-labelledby="status-title">
      <h2 id="status-title">Status</h2>
      <p>{MEANING[link.status]}</p>
      {error && (
        <p class="alert error" role="alert">
          {error.message}
        </p>
      )}
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
