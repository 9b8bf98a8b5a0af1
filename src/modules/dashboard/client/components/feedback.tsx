/** Loading, failure and empty states shared by every page. */
import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api/client';
import { type Resource, useDelayed } from '../lib/hooks';

/** A spinner that appears only when loading takes longer than 300 ms. */
export function Loading({ active, label = 'Loading…' }: { active: boolean; label?: string }) {
  const show = useDelayed(active);
  if (!show) return null;
  return (
    <p class="loading" role="status">
      <span class="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

export function LoadFailed({ error, retry }: { error: ApiError; retry?: () => void }) {
  return (
    <div class="alert error" role="alert">
      <p>{error.message}</p>
      {retry && (
        <button type="button" class="button secondary" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** What an empty list means and what to do about it. */
export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <h2>{title}</h2>
      {children}
    </div>
  );
}

/** A loaded resource's failure (with retry), a failed change's error, and the first load's spinner. */
export function ResourceStatus({
  resource,
  action,
}: {
  resource: Resource<unknown>;
  action?: { error: ApiError | null };
}) {
  return (
    <>
      {action?.error && <LoadFailed error={action.error} />}
      {resource.error && <LoadFailed error={resource.error} retry={resource.reload} />}
      <Loading active={resource.loading && resource.data === undefined} />
    </>
  );
}

/**
 * What a change just did ("Revoked key deploy."), said where it happened. Always rendered (empty
 * until there is something to say): a live region must exist before its text changes to be read.
 */
export function StatusLine({ text }: { text: string }) {
  return (
    <p class="status-line" role="status">
      {text}
    </p>
  );
}
