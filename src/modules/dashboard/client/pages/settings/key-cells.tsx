/** What the two key tables of Settings › API keys (one's own, every account's) show alike. */
import type { KeyItem } from '../../api/types';
import { UtcTime } from '../../components/utc-time';
import { projectsText } from './accounts';

export const STATUS_TEXT = { active: 'Active', expired: 'Expired', revoked: 'Revoked' } as const;
export const orNever = (ms: number | null) => (ms === null ? 'never' : <UtcTime ms={ms} />);

/** A key's limits in a few words: "All", or its projects and domains. */
export function limitsText(key: KeyItem, names: Map<string, string>): string {
  const parts = [
    key.projects === null ? '' : projectsText(key.projects, names),
    key.domains === null ? '' : key.domains.join(', '),
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : 'All';
}

/** The key's public prefix under its name: what tells two keys of one name apart. */
export function KeyNameCell({ keyItem }: { keyItem: KeyItem }) {
  return (
    <td class="wrap">
      {keyItem.name ?? '—'}
      <code class="cell-line">{keyItem.prefix}…</code>
    </td>
  );
}

export interface RevokeButtonProps {
  keyItem: KeyItem;
  /** The owner's email in the label (every account's keys): an admin's own key is in both tables. */
  owner?: string;
  onRevoke: (key: KeyItem) => void;
}

export function RevokeButton({ keyItem, owner, onRevoke }: RevokeButtonProps) {
  if (keyItem.status !== 'active') return null;
  const whose = owner === undefined ? 'key' : `${owner}'s key`;
  return (
    <button
      type="button"
      class="button small secondary"
      aria-label={`Revoke ${whose} ${keyItem.name ?? keyItem.prefix}`}
      onClick={() => onRevoke(keyItem)}
    >
      Revoke
    </button>
  );
}
