/**
 * /app/settings/accounts (superusers): every account; create one, disable or enable one. A
 * disabled account cannot sign in and its keys are revoked (for good: enabling it again does not
 * bring them back), which the confirmation says; nobody can disable themselves.
 */
import { useState } from 'preact/hooks';
import { listAccounts, setAccountDisabled } from '../../api/app';
import type { AccountItem } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { DataTable } from '../../components/data-table';
import { ResourceStatus } from '../../components/feedback';
import { SettingsFrame } from '../../components/settings-frame';
import { formatUtc } from '../../lib/format';
import { useAction, useResource } from '../../lib/hooks';
import { useSession } from '../../session';
import { AccountDialog } from './account-dialog';
import { InvitesSection } from './invites-section';

const ROLE_LABELS: Record<AccountItem['role'], string> = { admin: 'Admin', editor: 'Editor', viewer: 'Viewer' };

export function AccountsPage() {
  const accounts = useResource(listAccounts, []);
  const { account: me } = useSession();
  const action = useAction();
  const [creating, setCreating] = useState(false);
  const [disabling, setDisabling] = useState<AccountItem | null>(null);
  const toggle = async (item: AccountItem) => {
    if (await action.run(() => setAccountDisabled(item.id, item.disabledAt === null))) accounts.reload();
  };
  // Disabling cannot be fully undone (the keys stay revoked): it asks first; enabling does not.
  const choose = (item: AccountItem) => (item.disabledAt === null ? setDisabling(item) : toggle(item));
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
              <td>{ROLE_LABELS[item.role]}</td>
              <td>{formatUtc(item.createdAt)}</td>
              <td>{item.lastSignInAt === null ? 'never' : formatUtc(item.lastSignInAt)}</td>
              <td>{item.disabledAt === null ? 'Active' : 'Disabled'}</td>
              <td>
                {item.id !== me?.id && (
                  <button
                    type="button"
                    class="button small secondary"
                    aria-label={`${item.disabledAt === null ? 'Disable' : 'Enable'} ${item.email}`}
                    onClick={() => choose(item)}
                  >
                    {item.disabledAt === null ? 'Disable' : 'Enable'}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <ConfirmDialog
        open={disabling !== null}
        title={`Disable ${disabling?.email ?? 'this account'}?`}
        confirm="Disable account"
        onConfirm={async () => {
          if (disabling) await toggle(disabling);
          setDisabling(null);
        }}
        onCancel={() => setDisabling(null)}
      >
        <p>
          The account can no longer sign in and its sessions end now. Its API keys are revoked: anything using them gets
          401 key_revoked, and enabling the account again does not bring them back.
        </p>
      </ConfirmDialog>
      <AccountDialog
        open={creating}
        onCreated={() => {
          setCreating(false);
          accounts.reload();
        }}
        onClose={() => setCreating(false)}
      />
      <InvitesSection />
    </SettingsFrame>
  );
}
