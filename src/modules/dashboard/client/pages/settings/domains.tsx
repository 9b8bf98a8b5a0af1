/**
 * /app/settings/domains: the workspace's short domains, each with its links (leading to the
 * links list filtered to it) and when a request last reached it: none yet means its DNS or the
 * proxy in front does not point here yet, which the page says in so many words. Admins
 * (superusers) add, edit and delete domains; a domain is deleted only while no link is on it,
 * and never the default one, and the row says why when it cannot be. Others read the list.
 */
import { useState } from 'preact/hooks';
import { getWorkspace } from '../../api/app';
import { deleteDomain } from '../../api/domains';
import type { Domain } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { DataTable } from '../../components/data-table';
import { ResourceStatus, StatusLine } from '../../components/feedback';
import { SettingsFrame } from '../../components/settings-frame';
import { useDomains } from '../../lib/domains';
import { formatNumber, formatUtc } from '../../lib/format';
import { useAction, useResource } from '../../lib/hooks';
import { useSession } from '../../session';
import { AddDomainDialog } from './domain-add-dialog';
import { EditDomainDialog } from './domain-edit-dialog';
import { DomainSteps } from './domain-steps';

const linksText = (n: number) => (n === 1 ? '1 link' : `${formatNumber(n)} links`);

/** Why a domain cannot be deleted, or null when it can. */
function keptBecause(domain: Domain): string | null {
  if (domain.default) return 'The default domain cannot be deleted.';
  if (domain.linkCount > 0) {
    return `Cannot be deleted while ${linksText(domain.linkCount)} ${domain.linkCount === 1 ? 'is' : 'are'} on it: move or delete ${domain.linkCount === 1 ? 'it' : 'them'} first.`;
  }
  return null;
}

function LastRequest({ domain }: { domain: Domain }) {
  if (domain.lastSeenAt !== null) return <>{formatUtc(domain.lastSeenAt)}</>;
  return (
    <span class="warn-text">No request has reached this domain yet: its DNS or proxy does not point here yet.</span>
  );
}

export function DomainsPage() {
  const { account } = useSession();
  const admin = account?.superuser === true;
  const domains = useDomains();
  const workspace = useResource(getWorkspace, []);
  const action = useAction();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<Domain | null>(null);
  const [deleting, setDeleting] = useState<Domain | null>(null);
  const [done, setDone] = useState('');
  const remove = async (domain: Domain) => {
    setDone('');
    const deleted = await action.run(() => deleteDomain(domain.host));
    setDeleting(null);
    if (deleted) setDone(`Deleted domain ${domain.host}.`);
    domains.reload();
  };
  const columns = ['Domain', 'Links', 'Last request', 'Added'];
  return (
    <SettingsFrame title="Domains">
      <p>
        Short links live on these domains. Each link belongs to one; the same slug can be used once on each domain. New
        links go to the default domain unless another is chosen.
      </p>
      {admin ? (
        <p>
          <button type="button" class="button primary" onClick={() => setAdding(true)}>
            Add domain
          </button>
        </p>
      ) : (
        <p class="hint">Only superusers can add, change or delete domains.</p>
      )}
      <StatusLine text={done} />
      <ResourceStatus resource={domains} action={action} />
      {domains.list.length > 0 && (
        <div class="domains-table">
          <DataTable columns={columns} actions={admin}>
            {domains.list.map((domain) => {
              const kept = keptBecause(domain);
              return (
                <tr key={domain.host}>
                  <td>
                    <span class="domain-name">
                      <code>{domain.host}</code>
                      {domain.default && <span class="badge">Default</span>}
                    </span>
                  </td>
                  <td>
                    <a href={`/app?domain=${encodeURIComponent(domain.host)}`}>
                      {linksText(domain.linkCount)}
                      <span class="sr-only"> on {domain.host}</span>
                    </a>
                  </td>
                  <td class="wrap">
                    <LastRequest domain={domain} />
                  </td>
                  <td>{formatUtc(domain.createdAt, 'day')}</td>
                  {admin && (
                    <td>
                      <div class="row-actions">
                        <button
                          type="button"
                          class="button small secondary"
                          aria-label={`Edit ${domain.host}`}
                          onClick={() => setEditing(domain)}
                        >
                          Edit
                        </button>
                        {kept === null ? (
                          <button
                            type="button"
                            class="button small danger"
                            aria-label={`Delete ${domain.host}`}
                            onClick={() => setDeleting(domain)}
                          >
                            Delete
                          </button>
                        ) : (
                          <span class="hint">{kept}</span>
                        )}
                      </div>
                    </td>
                  )}
                </tr>
              );
            })}
          </DataTable>
        </div>
      )}
      {/* What to set up, again, for each domain no request has reached yet. */}
      {domains.list
        .filter((domain) => domain.lastSeenAt === null)
        .map((domain) => (
          <details key={domain.host} class="more-options domain-help">
            <summary>How to point {domain.host} here</summary>
            <DomainSteps domain={domain} appHost={workspace.data?.appHost ?? null} />
          </details>
        ))}
      <AddDomainDialog
        open={adding}
        appHost={workspace.data?.appHost ?? null}
        onAdded={() => domains.reload()}
        onClose={() => setAdding(false)}
      />
      <EditDomainDialog
        domain={editing}
        onSaved={(saved) => {
          setEditing(null);
          setDone(`Saved ${saved.host}.`);
          domains.reload();
        }}
        onClose={() => setEditing(null)}
      />
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${deleting?.host ?? 'this domain'}?`}
        confirm="Delete domain"
        onConfirm={() => (deleting ? remove(deleting) : undefined)}
        onCancel={() => setDeleting(null)}
      >
        <p>
          No link is on it. From now on its host is answered as the default domain, and it has to be added again to hold
          links. This cannot be undone.
        </p>
      </ConfirmDialog>
    </SettingsFrame>
  );
}
