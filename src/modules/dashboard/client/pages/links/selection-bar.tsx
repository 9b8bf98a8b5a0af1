/**
 * The links list's selection: "select all on this page", how many are selected (announced), and
 * what can be done to them. Parameters and project go in one bulk call each; archiving has no
 * bulk endpoint, so each link is changed in turn and every failure is reported with its link.
 */
import { useRef, useState } from 'preact/hooks';
import { toApiError } from '../../api/client';
import { updateLink } from '../../api/links';
import type { Link, Project } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { withoutScheme } from '../../lib/format';
import { MoveDialog } from './move-dialog';
import { linksText, type Outcome } from './outcome';
import { ParamsDialog } from './params-dialog';
import type { Selection } from './selection';

async function archiveEach(links: Link[]): Promise<Outcome> {
  const failures: Outcome['failures'] = [];
  for (const link of links) {
    try {
      await updateLink(link.id, { status: 'archived' });
    } catch (err) {
      failures.push({ label: withoutScheme(link.shortUrl), message: toApiError(err).message });
    }
  }
  const archived = links.length - failures.length;
  const text = failures.length
    ? `Archived ${archived} of ${linksText(links.length)}. Not archived:`
    : `Archived ${linksText(archived)}.`;
  return { text, failures };
}

export interface SelectionBarProps {
  links: Link[];
  selection: Selection;
  projects: Project[];
  onDone(outcome: Outcome): void;
}

export function SelectionBar({ links, selection, projects, onDone }: SelectionBarProps) {
  const [open, setOpen] = useState<'params' | 'move' | 'archive' | null>(null);
  const checkAll = useRef<HTMLInputElement>(null);
  const chosen = links.filter((link) => selection.has(link.id));
  const ids = chosen.map((link) => link.id);
  const all = links.map((link) => link.id);
  const allChosen = ids.length === all.length;
  const done = (outcome: Outcome) => {
    setOpen(null);
    onDone(outcome);
  };
  const dialog = { ids, onDone: done, onCancel: () => setOpen(null) };

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
          <button type="button" class="button small secondary" onClick={() => setOpen('move')}>
            Move to project
          </button>
          <button type="button" class="button small secondary" onClick={() => setOpen('archive')}>
            Archive
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
      <MoveDialog open={open === 'move'} projects={projects} {...dialog} />
      <ConfirmDialog
        open={open === 'archive'}
        title={`Archive ${linksText(ids.length)}?`}
        confirm="Archive links"
        onConfirm={async () => done(await archiveEach(chosen))}
        onCancel={() => setOpen(null)}
      >
        <p>
          They leave the list (choose the status Archived to see them) and keep redirecting and counting clicks. Restore
          any of them from its page.
        </p>
      </ConfirmDialog>
    </section>
  );
}
