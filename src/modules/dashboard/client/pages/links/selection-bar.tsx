/**
 * The links list's selection: "select all on this page", how many are selected (announced), and
 * what can be done to them. Every action is one bulk call for the whole selection (bulk-verbs.ts
 * and the dialogs); a status verb shows when it would change one of the selected links. Pausing,
 * archiving and deleting ask first; resuming and restoring only bring links back.
 */
import { useRef, useState } from 'preact/hooks';
import { toApiError } from '../../api/client';
import type { Link, Project } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { type BulkResult, clickedText, runDelete, runStatusVerb, STATUS_VERBS, type StatusVerb } from './bulk-verbs';
import { MoveDialog } from './move-dialog';
import { linksText, type Outcome } from './outcome';
import { ParamsDialog } from './params-dialog';
import type { Selection } from './selection';
import { TagsDialog } from './tags-dialog';

type Open = 'params' | 'tags' | 'move' | 'pause' | 'archive' | 'delete';

const VERB_ORDER: StatusVerb[] = ['pause', 'resume', 'archive', 'restore'];

export interface SelectionBarProps {
  links: Link[];
  selection: Selection;
  projects: Project[];
  /** After an action: its outcome, and the links to keep selected. */
  onDone(outcome: Outcome, keep: string[]): void;
}

export function SelectionBar({ links, selection, projects, onDone }: SelectionBarProps) {
  const [open, setOpen] = useState<Open | null>(null);
  const [busy, setBusy] = useState(false);
  const checkAll = useRef<HTMLInputElement>(null);
  const chosen = links.filter((link) => selection.has(link.id));
  const ids = chosen.map((link) => link.id);
  const all = links.map((link) => link.id);
  const allChosen = ids.length === all.length;
  const finish = ({ outcome, keep }: BulkResult) => {
    setOpen(null);
    onDone(outcome, keep);
  };
  /** Runs one action; a failed call changed nothing, so the selection stays for another try. */
  const run = async (action: () => Promise<BulkResult>, failed: string) => {
    setBusy(true);
    try {
      finish(await action());
    } catch (err) {
      finish({ outcome: { text: `${failed}: ${toApiError(err).message}`, tone: 'error' }, keep: ids });
    } finally {
      setBusy(false);
    }
  };
  const verb = (v: StatusVerb) => () =>
    run(() => runStatusVerb(v, ids), `Could not ${STATUS_VERBS[v].label.toLowerCase()} the links`);
  const dialog = { ids, onDone: (outcome: Outcome) => finish({ outcome, keep: [] }), onCancel: () => setOpen(null) };
  const verbs = VERB_ORDER.filter((v) => chosen.some(STATUS_VERBS[v].applies));
  const asks: Partial<Record<StatusVerb, Open>> = { pause: 'pause', archive: 'archive' };
  const clicked = clickedText(chosen);

  return (
    <section class="selection-bar" aria-label="Selection">
      <label class="check-all">
        <input
          ref={checkAll}
          type="checkbox"
          checked={ids.length > 0 && allChosen}
          indeterminate={ids.length > 0 && !allChosen}
          onChange={() => selection.toggleAll(all)}
        />
        Select all on this page
      </label>
      <span class="selection-count" role="status">
        {ids.length > 0 ? `${linksText(ids.length)} selected` : ''}
      </span>
      {ids.length > 0 && (
        <div class="actions start">
          <button type="button" class="button small secondary" onClick={() => setOpen('params')}>
            Set parameters
          </button>
          <button type="button" class="button small secondary" onClick={() => setOpen('tags')}>
            Change tags
          </button>
          <button type="button" class="button small secondary" onClick={() => setOpen('move')}>
            Move to project
          </button>
          {verbs.map((v) => {
            const confirm = asks[v];
            return (
              <button
                key={v}
                type="button"
                class="button small secondary"
                disabled={busy}
                aria-busy={busy}
                onClick={confirm ? () => setOpen(confirm) : verb(v)}
              >
                {STATUS_VERBS[v].label}
              </button>
            );
          })}
          <button type="button" class="button small secondary" onClick={() => setOpen('delete')}>
            Delete
          </button>
          <button
            type="button"
            class="button small secondary"
            onClick={() => {
              selection.clear();
              // This button goes with the selection: keep the focus in the bar.
              checkAll.current?.focus();
            }}
          >
            Clear selection
          </button>
        </div>
      )}
      <ParamsDialog open={open === 'params'} {...dialog} />
      <TagsDialog open={open === 'tags'} links={chosen} onDone={finish} onCancel={dialog.onCancel} />
      <MoveDialog open={open === 'move'} projects={projects} {...dialog} />
      <ConfirmDialog
        open={open === 'pause'}
        title={`Pause ${linksText(ids.length)}?`}
        confirm="Pause links"
        onConfirm={verb('pause')}
        onCancel={dialog.onCancel}
      >
        <p>
          Visitors of their short links get the "Link not found" page, and no clicks are recorded until they are
          resumed.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={open === 'archive'}
        title={`Archive ${linksText(ids.length)}?`}
        confirm="Archive links"
        onConfirm={verb('archive')}
        onCancel={dialog.onCancel}
      >
        <p>
          They leave the list (choose the status Archived to see them, and restore them there) and keep redirecting and
          counting clicks.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={open === 'delete'}
        title={`Delete ${linksText(ids.length)}?`}
        confirm="Delete links"
        onConfirm={() => run(() => runDelete(chosen), 'Could not delete the links')}
        onCancel={dialog.onCancel}
      >
        <p>
          Links without clicks are deleted for good, with their variants. A link that has clicks is kept: delete it from
          its own page, where its clicks and statistics go with it, or archive it.
        </p>
        {clicked && <p>{clicked}</p>}
      </ConfirmDialog>
    </section>
  );
}
