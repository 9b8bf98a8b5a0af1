/**
 * /app/settings/import (admins): bring links, and their click history, from another shortener,
 * a CSV file or another Slink's export. The form starts a run (a dry run first, if the person
 * likes), the run shows below it while it goes (its id in the address, so a reload finds it
 * again), and past runs are listed with where they read from, their numbers and reports.
 */
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { type ImportRun, listImports, reportUrl } from '../../api/imports';
import { listProjects } from '../../api/projects';
import { DataTable } from '../../components/data-table';
import { EmptyState, ResourceStatus } from '../../components/feedback';
import { SettingsFrame } from '../../components/settings-frame';
import { useDomains } from '../../lib/domains';
import { formatNumber, formatUtc } from '../../lib/format';
import { useResource } from '../../lib/hooks';
import { runAddress } from '../../lib/import-sources';
import { navigate } from '../../router';
import type { PageProps } from '../page';
import { ImportForm } from './import-form';
import { ImportRunPanel, STATUS_LABELS, sourceLabel } from './import-run';

const PATH = '/app/settings/import';

/** An address with places to break: after its scheme, before its port, after each "/" of its path. */
function breakable(address: string) {
  return address.split(/(?<=\/\/)|(?=:\d)|(?<=[^/]\/)/).map((part, i) => (
    <Fragment key={i}>
      {i > 0 && <wbr />}
      {part}
    </Fragment>
  ));
}

function PastRuns({ runs, onShow }: { runs: ImportRun[]; onShow(run: ImportRun): void }) {
  return (
    <DataTable columns={['Started (UTC)', 'Source', 'Status', 'Created', 'Skipped', 'Failed', 'Clicks']}>
      {runs.map((run) => (
        <tr key={run.id}>
          <td class="import-started">{formatUtc(run.startedAt, 'minute', false)}</td>
          <td class="import-source">
            <span>{sourceLabel(run.source)}</span> {run.options.dryRun && <span class="badge">Dry run</span>}
            <span class="import-address">{breakable(runAddress(run))}</span>
          </td>
          <td>
            <span class={`badge import-${run.status}`}>{STATUS_LABELS[run.status]}</span>
          </td>
          <td>{formatNumber(run.links.created)}</td>
          <td>{formatNumber(run.links.skipped)}</td>
          <td>{formatNumber(run.links.failed)}</td>
          {/* A dry run reads no history. */}
          <td>{run.options.dryRun ? '—' : formatNumber(run.clicks.imported)}</td>
          <td>
            <div class="row-actions">
              <button
                type="button"
                class="button small secondary"
                aria-label={`Show the ${sourceLabel(run.source)} run of ${formatUtc(run.startedAt, 'second')}`}
                onClick={() => onShow(run)}
              >
                Show
              </button>
              <a class="button small secondary" href={reportUrl(run.id)} download={`import-${run.id}.csv`}>
                Report<span class="sr-only"> of the run of {formatUtc(run.startedAt, 'second')}</span>
              </a>
            </div>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

export function ImportPage({ query }: PageProps) {
  const domains = useDomains();
  const projects = useResource(listProjects, []);
  const runs = useResource(listImports, []);
  const shown = query.get('run');
  const show = (id: string) => navigate(`${PATH}?run=${encodeURIComponent(id)}`, { replace: true });
  const [latest, setLatest] = useState<ImportRun | null>(null);
  const past = (runs.data?.items ?? []).map((r) => (r.id === latest?.id ? latest : r));
  return (
    <SettingsFrame title="Import">
      <p>
        Bring links and their clicks from another link shortener, a CSV file or another Slink's export. A link already
        imported from the same source link is never made twice: running an import again adds only what is new.
      </p>
      <ImportForm domains={domains.list} projects={projects.data?.projects ?? []} onStarted={show} />
      {shown && (
        <ImportRunPanel
          key={shown}
          id={shown}
          onRead={(read) => {
            // Its row in the list shows the same numbers; a run the list does not hold yet is read again.
            setLatest(read);
            if (runs.data && !runs.data.items.some((r) => r.id === read.id)) runs.reload();
          }}
        />
      )}
      <h2>All imports</h2>
      <ResourceStatus resource={runs} />
      {runs.data && past.length === 0 && (
        <EmptyState title="No imports yet">
          <p>Each import and dry run shows here, with its report.</p>
        </EmptyState>
      )}
      {past.length > 0 && (
        <div class="import-runs">
          <PastRuns runs={past} onShow={(run) => show(run.id)} />
        </div>
      )}
    </SettingsFrame>
  );
}
