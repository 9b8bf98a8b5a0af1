/**
 * The invites part of Settings › Accounts (admins): an Invite button, and the pending invites
 * with their expiry and a Revoke button. Never an invite's address: that is shown once, when made.
 */
import { useState } from 'preact/hooks';
import { type InviteItem, listInvites, revokeInvite } from '../../api/invites';
import { listProjects } from '../../api/projects';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { DataTable } from '../../components/data-table';
import { ResourceStatus } from '../../components/feedback';
import { formatUtc } from '../../lib/format';
import { useAction, useResource } from '../../lib/hooks';
import { InviteDialog } from './invite-dialog';

const ROLE_LABELS: Record<InviteItem['role'], string> = { admin: 'Admin', editor: 'Editor', viewer: 'Viewer' };

export function InvitesSection() {
  const invites = useResource(listInvites, []);
  const action = useAction();
  const [inviting, setInviting] = useState(false);
  const [revoking, setRevoking] = useState<InviteItem | null>(null);
  const items = invites.data?.items ?? [];
  const projects = useResource(listProjects, []);
  const names = new Map((projects.data?.projects ?? []).map((p) => [p.id, p.name]));
  const projectsOf = (ids: string[] | null) =>
    ids === null ? 'All projects' : ids.map((id) => names.get(id) ?? id).join(', ');
  return (
    <section class="stack invites" aria-labelledby="pending-invites">
      <h2 id="pending-invites">Pending invites</h2>
      <p class="hint">
        An invite is a one-time address, valid 7 days, where the person chooses their own password and gets the role you
        chose.
      </p>
      <p>
        <button type="button" class="button primary" onClick={() => setInviting(true)}>
          Invite
        </button>
      </p>
      <ResourceStatus resource={invites} action={action} />
      {!invites.loading && items.length === 0 && !invites.error && <p class="hint">No pending invites.</p>}
      {items.length > 0 && (
        <DataTable columns={['Email', 'Role', 'Projects', 'Expires']}>
          {items.map((item) => (
            <tr key={item.id}>
              <td>{item.email}</td>
              <td>{ROLE_LABELS[item.role]}</td>
              <td>{projectsOf(item.projects)}</td>
              <td>{formatUtc(item.expiresAt)}</td>
              <td>
                <button
                  type="button"
                  class="button small secondary"
                  aria-label={`Revoke the invite of ${item.email}`}
                  onClick={() => setRevoking(item)}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke the invite of ${revoking?.email ?? 'this person'}?`}
        confirm="Revoke invite"
        onConfirm={async () => {
          const item = revoking;
          setRevoking(null);
          if (item && (await action.run(() => revokeInvite(item.id)))) invites.reload();
        }}
        onCancel={() => setRevoking(null)}
      >
        <p>Its address stops working at once. You can invite the same email again afterwards.</p>
      </ConfirmDialog>
      <InviteDialog open={inviting} onCreated={invites.reload} onClose={() => setInviting(false)} />
    </section>
  );
}
