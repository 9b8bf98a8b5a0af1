/**
 * The admins' part of Settings › API keys: the other accounts' keys with their owner's email, each
 * active one with Revoke (the page's confirmation asks first). The admin's own keys are in the
 * table above, so they are left out here rather than shown twice. Never a secret: none is stored.
 */
import { listEveryKey } from '../../api/app';
import type { KeyItem } from '../../api/types';
import { DataTable } from '../../components/data-table';
import { ResourceStatus } from '../../components/feedback';
import { useResource } from '../../lib/hooks';
import { useSession } from '../../session';
import { KeyNameCell, limitsText, orNever, RevokeButton, STATUS_TEXT } from './key-cells';

export interface EveryKeySectionProps {
  /** Bumped by the page after a key is made or revoked, to load the list again. */
  changes: number;
  names: Map<string, string>;
  onRevoke: (key: KeyItem) => void;
}

export function EveryKeySection({ changes, names, onRevoke }: EveryKeySectionProps) {
  const keys = useResource(listEveryKey, [changes]);
  const me = useSession().account?.id;
  const items = (keys.data?.items ?? []).filter((key) => key.accountId !== me);
  return (
    <section class="stack every-key" aria-labelledby="every-key">
      <h2 id="every-key">Other accounts' keys</h2>
      <p class="hint">As an admin you see every account's keys and can revoke them.</p>
      <ResourceStatus resource={keys} />
      {keys.data && items.length === 0 && <p class="hint">No other account has an API key.</p>}
      {items.length > 0 && (
        <DataTable columns={['Owner', 'Name', 'Scope', 'Last used', 'Status', 'Limits']}>
          {items.map((key) => (
            <tr key={key.id}>
              <td class="wrap">{key.email}</td>
              <KeyNameCell keyItem={key} />
              <td>{key.scope}</td>
              <td>{orNever(key.lastUsedAt)}</td>
              <td>{STATUS_TEXT[key.status]}</td>
              <td class="wrap">{limitsText(key, names)}</td>
              <td>
                <RevokeButton keyItem={key} owner={key.email} onRevoke={onRevoke} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
