/**
 * /app/settings/keys: the account's API keys (never their secrets), creating and revoking; for an
 * admin, every account's keys below (every-key-section.tsx).
 */
import { useState } from 'preact/hooks';
import { listKeys, revokeKey } from '../../api/app';
import { listProjects } from '../../api/projects';
import type { KeyItem } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { DataTable } from '../../components/data-table';
import { EmptyState, ResourceStatus, StatusLine } from '../../components/feedback';
import { SettingsFrame } from '../../components/settings-frame';
import { UtcTime } from '../../components/utc-time';
import { useAction, useResource } from '../../lib/hooks';
import { usePowers } from '../../lib/powers';
import { EveryKeySection } from './every-key-section';
import { KeyNameCell, limitsText, orNever, RevokeButton, STATUS_TEXT } from './key-cells';
import { KeyDialog } from './key-dialog';

export function KeysPage() {
  const keys = useResource(listKeys, []);
  const projects = useResource(listProjects, []);
  const names = new Map((projects.data?.projects ?? []).map((p) => [p.id, p.name]));
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<KeyItem | null>(null);
  const action = useAction();
  const [done, setDone] = useState('');
  // Bumped on each key made or revoked: the admins' list of every key loads again with it.
  const [changes, setChanges] = useState(0);
  const admin = usePowers().admin;
  const changed = () => {
    keys.reload();
    setChanges((n) => n + 1);
  };
  const items = keys.data?.items ?? [];
  const revoke = async (key: KeyItem) => {
    setDone('');
    const revoked = await action.run(() => revokeKey(key.id));
    setRevoking(null);
    if (revoked) setDone(`Revoked key ${key.name ?? key.prefix}: anything still using it now gets 401.`);
    changed();
  };
  return (
    <SettingsFrame title="API keys">
      <p>Keys let scripts and other services use the API. Each key acts for your account.</p>
      <p>
        <button type="button" class="button primary" onClick={() => setCreating(true)}>
          Create key
        </button>
      </p>
      <StatusLine text={done} />
      <ResourceStatus resource={keys} action={action} />
      {keys.data && items.length === 0 && (
        <EmptyState title="No API keys">
          <p>Create a key with Create key; read keys can only read, write keys can also change links.</p>
        </EmptyState>
      )}
      {items.length > 0 && (
        <DataTable columns={['Name', 'Scope', 'Created', 'Last used', 'Expires', 'Status', 'Limits']}>
          {items.map((key) => (
            <tr key={key.id}>
              <KeyNameCell keyItem={key} />
              <td>{key.scope}</td>
              <td>
                <UtcTime ms={key.createdAt} />
              </td>
              <td>{orNever(key.lastUsedAt)}</td>
              <td>{orNever(key.expiresAt)}</td>
              <td>{STATUS_TEXT[key.status]}</td>
              <td class="wrap">{limitsText(key, names)}</td>
              <td>
                <RevokeButton keyItem={key} onRevoke={setRevoking} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {admin && <EveryKeySection changes={changes} names={names} onRevoke={setRevoking} />}
      <KeyDialog open={creating} onCreated={changed} onClose={() => setCreating(false)} />
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this key?"
        confirm="Revoke key"
        onConfirm={() => (revoking ? revoke(revoking) : undefined)}
        onCancel={() => setRevoking(null)}
      >
        <p>Anything still using it gets 401 key_revoked from now on. This cannot be undone.</p>
      </ConfirmDialog>
    </SettingsFrame>
  );
}
