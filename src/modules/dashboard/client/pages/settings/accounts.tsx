/**
 * /app/settings/accounts (superusers): every account; create one, disable or enable one. A
 * disabled account cannot sign in and its keys stop working; nobody can disable themselves.
 */
import { useState } from 'preact/hooks';
import { listAccounts, setAccountDisabled } from '../../api/app';
import type { AccountItem } from '../../api/types';
import { LoadFailed, Loading } from '../../components/feedback';
import { SettingsFrame } from '../../components/settings-frame';
import { formatDate } from '../../lib/format';
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
      {action.error && <LoadFailed error={action.error} />}
      {accounts.error && <LoadFailed error={accounts.error} retry={accounts.reload} />}
      <Loading active={accounts.loading && !accounts.data} />
      {items.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Created</th>
                <th scope="col">Last sign-in</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((item) => (
                <tr key={item.id}>
                  <td>{item.email}</td>
                  <td>{item.superuser ? 'Superuser' : 'Member'}</td>
                  <td>{formatDate(item.createdAt)}</td>
                  <td>{item.lastSignInAt === null ? 'never' : formatDate(item.lastSignInAt)}</td>
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
            </tbody>
          </table>
        </div>
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
