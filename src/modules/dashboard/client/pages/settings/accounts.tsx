/**
 * /app/settings/accounts (admins): every account with its role and projects; create one, change
 * its role and projects, disable or enable one. A disabled account cannot sign in and its keys
 * are revoked (for good: enabling it again does not bring them back), which the confirmation
 * says; nobody can disable themselves, and the last active admin cannot be demoted (the API's
 * refusal shows in the dialog, under the role).
 */
import { useState } from 'preact/hooks';
import { listAccounts, setAccountDisabled } from '../../api/app';
import { listProjects } from '../../api/projects';
import type { AccountItem } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { DataTable } from '../../components/data-table';
import { ResourceStatus } from '../../components/feedback';
import { SettingsFrame } from '../../components/settings-frame';
import { UtcTime } from '../../components/utc-time';
import { useAction, useResource } from '../../lib/hooks';
import { useSession } from '../../session';
import { AccountDialog } from './account-dialog';
import { InvitesSection } from './invites-section';

const ROLE_LABELS: Record<AccountItem['role'], string> = { admin: 'Admin', editor: 'Editor', viewer: 'Viewer' };

/** The projects an account is limited to, by name ("All projects" when it is not). */
export function projectsText(ids: string[] | null, names: Map<string, string>): string {
  return ids === null ? 'All projects' : ids.map((id) => names.get(id) ?? id).join(', ');
}

export function AccountsPage() {
  const accounts = useResource(listAccounts, []);
  const projects = useResource(listProjects, []);
  const { account: me } = useSession();
  const action = useAction();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<AccountItem | null>(null);
  const projectList = projects.data?.projects ?? [];
  const names = new Map(projectList.map((p) => [p.id, p.name]));
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
        <DataTable columns={['Email', 'Role', 'Created', 'Last sign-in', 'Status', 'Projects']}>
          {items.map((item) => (
            <tr key={item.id}>
              <td>{item.email}</td>
              <td>{ROLE_LABELS[item.role]}</td>
              <td>
                <UtcTime ms={item.createdAt} />
              </td>
              <td>{item.lastSignInAt === null ? 'never' : <UtcTime ms={item.lastSignInAt} />}</td>
              <td>{item.disabledAt === null ? 'Active' : 'Disabled'}</td>
              <td class="wrap">{projectsText(item.projects, names)}</td>
              <td>
                <div class="row-actions">
                  <button
                    type="button"
                    class="button small secondary"
                    aria-label={
                      item.id === me?.id ? 'Change your role and projects' : `Change role and projects of ${item.email}`
                    }
                    onClick={() => setEditing(item)}
                  >
                    Change
                  </button>
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
                </div>
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
        open={creating || editing !== null}
        account={editing}
        projects={projectList}
        onDone={() => {
          setCreating(false);
          setEditing(null);
          accounts.reload();
        }}
        onClose={() => {
          setCreating(false);
          setEditing(null);
        }}
      />
      <InvitesSection />
    </SettingsFrame>
  );
}
