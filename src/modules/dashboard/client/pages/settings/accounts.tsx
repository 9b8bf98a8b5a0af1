/**
 * /app/settings/accounts (superusers): every account; create one, disable or enable one. A
 * disabled account cannot sign in and its keys stop working; nobody can disable themselves.
 */
import { useState } from 'preact/hooks';
import { listAccounts, setAccountDisabled } from '../../api/app';
import type { AccountItem } from '../../api/types';
import { DataTable } from '../../components/data-table';
import { ResourceStatus } from '../../components/feedback';
import { SettingsFrame } from '../../components/settings-frame';
import { formatUtc } from '../../lib/format';
import { useAction, useResource } from '../../lib/hooks';
import { useSession } from '../../session';
import { AccountDialog } from './account-dialog';

export function AccountsPage() {
  const accounts = useResource(listAccounts, []);
  const { account: me } = useSession();
  const action = useAction();
  const [creating, setCreating] = useState(false);
  const toggle = async (item: AccountItem) => {
    if (await action.run(() => setAccountDisabled(item.id, item.disabledAt === null))) accounts.reload();
  };
  const items = accounts.data?.items ?? [];
  return (
    <SettingsFrame title="Accounts">
      <p>
        <button type="button" class="button primary" onClick={() => setCreating(true)}>
          Create account
        </button>
      </p>
      <ResourceStatus resource={accounts} action={action} />
      {items.length > 0 && (
        <DataTable columns={['Email', 'Role', 'Created', 'Last sign-in', 'Status']}>
          {items.map((item) => (
            <tr key={item.id}>
              <td>{item.email}</td>
              <td>{item.superuser ? 'Superuser' : 'Member'}</td>
              <td>{formatUtc(item.createdAt)}</td>
              <td>{item.lastSignInAt === null ? 'never' : formatUtc(item.lastSignInAt)}</td>
              <td>{item.disabledAt === null ? 'Active' : 'Disabled'}</td>
              <td>
                {item.id !== me?.id && (
                  <button
                    type="button"
                    class="button small secondary"
                    aria-label={`${item.disabledAt === null ? 'Disable' : 'Enable'} ${item.email}`}
                    onClick={() => toggle(item)}
                  >
                    {item.disabledAt === null ? 'Disable' : 'Enable'}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <AccountDialog
        open={creating}
        onCreated={() => {
          setCreating(false);
          accounts.reload();
        }}
        onClose={() => setCreating(false)}
      />
    </SettingsFrame>
  );
}
