/**
 * /app/settings/audit (admins): who changed what, newest first, a page at a time, filtered by
 * who, action and kind of target. A link is named by its slug and opens it (while it exists);
 * other targets by their id or host. Only names of fields are ever shown: the log holds no values.
 */
import { useState } from 'preact/hooks';
import { listAccounts } from '../../api/app';
import { type AuditFilters, listAudit } from '../../api/audit';
import type { AppAuditItem } from '../../api/types';
import { DataTable } from '../../components/data-table';
import { EmptyState, LoadFailed, Loading } from '../../components/feedback';
import { SelectField } from '../../components/field';
import { SettingsFrame } from '../../components/settings-frame';
import { formatUtc } from '../../lib/format';
import { useResource } from '../../lib/hooks';
import { usePagedList } from '../../lib/paged';

const ACTIONS = [
  'link.create',
  'link.update',
  'link.delete',
  'variant.create',
  'variant.update',
  'variant.delete',
  'project.create',
  'project.update',
  'project.delete',
  'domain.create',
  'domain.update',
  'domain.delete',
  'webhook.create',
  'webhook.update',
  'webhook.rotate',
  'webhook.delete',
  'key.create',
  'key.revoke',
  'account.create',
  'account.update',
  'invite.create',
  'invite.revoke',
];
const TARGET_TYPES = ['link', 'variant', 'project', 'domain', 'webhook', 'key', 'session', 'account', 'invite'];
const VIA_LABELS: Record<AppAuditItem['via'], string> = { api: 'API', dashboard: 'Dashboard', cli: 'CLI', mcp: 'MCP' };

function Who({ item }: { item: AppAuditItem }) {
  if (item.actor.accountId === null) return <span>Operator (CLI)</span>;
  return <span>{item.email ?? item.actor.accountId}</span>;
}

/** The action names the kind of target: a link by its slug (linked), anything else by its id or host. */
function Target({ item }: { item: AppAuditItem }) {
  if (item.target.type === 'link' && item.slug !== null)
    return <a href={`/app/links/${encodeURIComponent(item.target.id)}`}>{item.slug}</a>;
  return <code>{item.target.id}</code>;
}

export function AuditPage() {
  const [filters, setFilters] = useState<AuditFilters>({});
  const accounts = useResource(listAccounts, []);
  const log = usePagedList((cursor) => listAudit(filters, cursor), JSON.stringify(filters));
  const set = (key: keyof AuditFilters) => (value: string) => setFilters((f) => ({ ...f, [key]: value || undefined }));
  const filtered = Object.values(filters).some((v) => v !== undefined);
  return (
    <SettingsFrame title="Audit log">
      <p>
        Every change to links, variants, projects, tags, domains, webhooks, keys, accounts and invites: who, through
        what, when and which fields (never their values). Kept 365 days.
      </p>
      <search class="filters">
        <SelectField
          label="Who"
          value={filters.actor ?? ''}
          onValue={set('actor')}
          blank="Anyone"
          options={(accounts.data?.items ?? []).map((a) => ({ value: a.id, label: a.email }))}
        />
        <SelectField
          label="Action"
          value={filters.action ?? ''}
          onValue={set('action')}
          blank="Any action"
          options={ACTIONS.map((a) => ({ value: a, label: a }))}
        />
        <SelectField
          label="Target"
          value={filters.targetType ?? ''}
          onValue={set('targetType')}
          blank="Any target"
          options={TARGET_TYPES.map((type) => ({ value: type, label: type }))}
        />
      </search>
      {log.items.length > 0 && (
        <DataTable columns={['When (UTC)', 'Who', 'Via', 'Action', 'Target', 'Fields']} actions={false}>
          {log.items.map((item) => (
            <tr key={item.id}>
              <td>{formatUtc(item.at, 'second', false)}</td>
              <td>
                <Who item={item} />
              </td>
              <td>{VIA_LABELS[item.via]}</td>
              <td>
                <code>{item.action}</code>
              </td>
              <td>
                <Target item={item} />
              </td>
              <td class="wrap">{item.fields.length === 0 ? '—' : item.fields.join(', ')}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {log.error && <LoadFailed error={log.error} retry={log.retry} />}
      {!log.loading && !log.error && log.items.length === 0 && (
        <EmptyState title={filtered ? 'No changes match' : 'No changes yet'}>
          <p>{filtered ? 'Try fewer filters.' : 'Changes show here as soon as anyone makes one.'}</p>
        </EmptyState>
      )}
      <Loading active={log.loading && log.items.length === 0} />
      {log.cursor && !log.loading && !log.error && (
        <p class="more">
          <button type="button" class="button secondary" onClick={log.more}>
            Load older changes
          </button>
        </p>
      )}
    </SettingsFrame>
  );
}
