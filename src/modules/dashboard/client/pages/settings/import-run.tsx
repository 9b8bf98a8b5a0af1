/**
 * One import run as Settings › Import shows it: its state, a progress bar and its numbers (links
 * seen, created, skipped, failed, clicks imported), read again every second while it runs and no
 * longer once it ends; the source links it refused and why; Cancel while it runs; its report.
 * A dry run says that nothing was written, and its numbers are what an import would do.
 */
import { useEffect, useState } from 'preact/hooks';
import { cancelImport, getImport, type ImportRun, type ImportStatus, reportUrl } from '../../api/imports';
import { DataTable } from '../../components/data-table';
import { LoadFailed, Loading } from '../../components/feedback';
import { formatNumber, formatUtc } from '../../lib/format';
import { useAction, useFocusOn, useResource } from '../../lib/hooks';
import { sourceInfo } from '../../lib/import-sources';

export const STATUS_LABELS: Record<ImportStatus, string> = {
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export const sourceLabel = (source: string) => sourceInfo(source)?.label ?? source;

const links = (n: number) => (n === 1 ? '1 link' : `${formatNumber(n)} links`);

/**
 * The run's outcome in one sentence, once it has ended. The skipped that an earlier run of the
 * source made are said apart: they are no refusal (Not imported does not list them), and a
 * re-run that found nothing new says so rather than "0 created, 3 skipped".
 */
function outcome(run: ImportRun, dryRun: boolean): string {
  const { seen, created, skipped, existing, failed } = run.links;
  if (run.status === 'done' && seen > 0 && existing === seen) {
    const all = seen === 1 ? 'The link was' : `All ${links(seen)} were`;
    return `${dryRun ? 'Dry run: nothing was written. ' : 'Done: '}Nothing new. ${all} already imported by an earlier run of this source.`;
  }
  const before = existing === 0 ? '' : ` (${existing === skipped ? 'all' : formatNumber(existing)} already imported)`;
  const parts = [
    `${links(created)} ${dryRun ? 'would be created' : 'created'}`,
    skipped > 0 ? `${formatNumber(skipped)} ${dryRun ? 'would be skipped' : 'skipped'}${before}` : '',
    failed > 0 ? `${formatNumber(failed)} ${dryRun ? 'would fail' : 'failed'}` : '',
  ].filter(Boolean);
  const said = parts.join(', ');
  if (run.status === 'done') return dryRun ? `Dry run: nothing was written. ${said}.` : `Done: ${said}.`;
  if (run.status === 'cancelled') return `Cancelled: ${said} before it stopped.`;
  return `Failed: ${said} before it stopped. The errors below say why.`;
}

/**
 * Moving while the run goes, full once it has ended. The source's size is not known ahead (and
 * the numbers grow a page of links at a time), so a running bar says "working", not how far.
 */
function Progress({ run }: { run: ImportRun }) {
  return run.status === 'running' ? (
    <progress class="import-progress" aria-label="Progress" />
  ) : (
    <progress class="import-progress" aria-label="Progress" value={1} max={1} />
  );
}

/** Reads the run, then again every second while it runs. */
function useRun(id: string) {
  const run = useResource(() => getImport(id), [id]);
  const [misses, setMisses] = useState(0);
  const running = run.data?.status === 'running';
  useEffect(() => {
    if (!running) return;
    let current = true;
    const timer = setTimeout(() => {
      getImport(id).then(
        (next) => current && run.set(next),
        // A missed reading is tried again a second later.
        () => current && setMisses((n) => n + 1),
      );
    }, 1000);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [id, running, run.data, misses]);
  return run;
}

export interface ImportRunPanelProps {
  id: string;
  /** Every reading of the run: the page's list shows the same numbers. */
  onRead(run: ImportRun): void;
}

export function ImportRunPanel({ id, onRead }: ImportRunPanelProps) {
  const run = useRun(id);
  const action = useAction();
  const heading = useFocusOn<HTMLHeadingElement>(id);
  useEffect(() => {
    if (run.data) onRead(run.data);
  }, [run.data]);

  if (!run.data) {
    return (
      <section class="panel" aria-label="Import">
        {run.error ? <LoadFailed error={run.error} retry={run.reload} /> : <Loading active />}
      </section>
    );
  }
  const current = run.data;
  const dryRun = current.options.dryRun;
  const n = current.links;
  const numbers: [string, number][] = [
    ['Links seen', n.seen],
    [dryRun ? 'Would be created' : 'Created', n.created],
    [dryRun ? 'Would be skipped' : 'Skipped', n.skipped],
    [dryRun ? 'Would fail' : 'Failed', n.failed],
  ];
  // A dry run reads no history: it has no clicks to count.
  if (!dryRun) numbers.push(['Clicks imported', current.clicks.imported]);
  const cancel = async () => {
    if (await action.run(() => cancelImport(id))) run.reload();
  };
  return (
    <section class="panel import-run" aria-labelledby={`run-${id}`}>
      <div class="panel-head">
        <h2 id={`run-${id}`} ref={heading} tabIndex={-1}>
          {dryRun ? 'Dry run' : 'Import'} from {sourceLabel(current.source)}
        </h2>
        <span class={`badge import-${current.status}`}>{STATUS_LABELS[current.status]}</span>
      </div>
      <p class="hint">
        {current.url !== null && (
          <>
            From <code>{current.url}</code>.{' '}
          </>
        )}
        Started {formatUtc(current.startedAt, 'second')}
        {current.endedAt !== null && `, ended ${formatUtc(current.endedAt, 'second')}`}
      </p>
      {current.status !== 'failed' && current.status !== 'cancelled' && <Progress run={current} />}
      <dl class="numbers">
        {numbers.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{formatNumber(value)}</dd>
          </div>
        ))}
      </dl>
      <p role="status" class={current.status === 'done' ? 'notice' : current.status === 'running' ? '' : 'warn-text'}>
        {current.status === 'running' ? `Running: ${links(n.seen)} read so far.` : outcome(current, dryRun)}
      </p>
      {action.error && <LoadFailed error={action.error} />}
      {current.errors.length > 0 && (
        <div class="import-errors">
          <h3>Not imported</h3>
          <p class="hint">
            {current.errors.length >= 100 ? 'The first 100; the report lists every one.' : 'The report lists them too.'}
          </p>
          <DataTable columns={['Source link', 'Reason']} actions={false}>
            {current.errors.map((e, i) => (
              <tr key={`${i}-${e.source}`}>
                <td class="wrap">
                  {/* No source link: about the run itself (the source refused, the run stopped). */}
                  {e.source === '' ? <em>The run</em> : <code>{e.source}</code>}
                </td>
                <td class="wrap">{e.reason}</td>
              </tr>
            ))}
          </DataTable>
        </div>
      )}
      <div class="actions start">
        {current.status === 'running' && (
          <button type="button" class="button danger" onClick={cancel}>
            Cancel import
          </button>
        )}
        <a class="button secondary" href={reportUrl(id)} download={`import-${id}.csv`}>
          Download report (CSV)
        </a>
      </div>
    </section>
  );
}
