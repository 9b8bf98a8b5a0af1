/** /app/settings/keys: the account's API keys (never their secrets), creating and revoking. */
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
import { projectsText } from './accounts';
import { KeyDialog } from './key-dialog';

const STATUS_TEXT = { active: 'Active', expired: 'Expired', revoked: 'Revoked' } as const;
const orNever = (ms: number | null) => (ms === null ? 'never' : <UtcTime ms={ms} />);

/** A key's limits in a few words: "All", or its projects and domains. */
function limitsText(key: KeyItem, names: Map<string, string>): string {
  const parts = [
    key.projects === null ? '' : projectsText(key.projects, names),
    key.domains === null ? '' : key.domains.join(', '),
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : 'All';
}

export function KeysPage() {
  const keys = useResource(listKeys, []);
  const projects = useResource(listProjects, []);
  const names = new Map((projects.data?.projects ?? []).map((p) => [p.id, p.name]));
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<KeyItem | null>(null);
  const action = useAction();
  const [done, setDone] = useState('');
  const items = keys.data?.items ?? [];
  const revoke = async (key: KeyItem) => {
    setDone('');
    const revoked = await action.run(() => revokeKey(key.id));
    setRevoking(null);
    if (revoked) setDone(`Revoked key ${key.name ?? key.prefix}: anything still using it now gets 401.`);
    keys.reload();
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
              {/* The key's public prefix under its name: what tells two keys of one name apart. */}
              <td class="wrap">
                {key.name ?? '—'}
                <code class="cell-line">{key.prefix}…</code>
              </td>
              <td>{key.scope}</td>
              <td>
                <UtcTime ms={key.createdAt} />
              </td>
              <td>{orNever(key.lastUsedAt)}</td>
              <td>{orNever(key.expiresAt)}</td>
              <td>{STATUS_TEXT[key.status]}</td>
              <td class="wrap">{limitsText(key, names)}</td>
              <td>
                {key.status === 'active' && (
                  <button
                    type="button"
                    class="button small secondary"
                    aria-label={`Revoke key ${key.name ?? key.prefix}`}
                    onClick={() => setRevoking(key)}
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <KeyDialog open={creating} onCreated={() => keys.reload()} onClose={() => setCreating(false)} />
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
