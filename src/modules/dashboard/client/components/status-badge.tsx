/** A link's status, shown only when it is not the ordinary "active". */
import type { LinkStatus } from '../api/types';

export function StatusBadge({ status }: { status: LinkStatus }) {
  if (status === 'active') return null;
  return <span class={`badge ${status}`}>{status === 'paused' ? 'Paused' : 'Archived'}</span>;
}
