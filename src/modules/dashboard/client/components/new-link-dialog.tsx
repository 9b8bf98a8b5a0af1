/**
 * Quick create: a destination, and optionally a title, tags, a project, tracking parameters and
 * (superusers only) a custom slug. A pasted URL's utm_ keys move into the parameters editor
 * before anything is saved, so the person sees what the server will do.
 */
import { useState } from 'preact/hooks';
import { type ApiError, toApiError } from '../api/client';
import { createLink } from '../api/links';
import type { Link, Project } from '../api/types';
import { splitList } from '../lib/format';
import { paramsFromRows } from '../lib/params';
import { useSession } from '../session';
import { DestinationField, useDestination } from './destination-field';
import { Dialog } from './dialog';
import { Field, SelectField } from './field';
import { errorFor, FormError } from './form-error';
import { ParamsEditor } from './params-editor';

export interface NewLinkDialogProps {
  open: boolean;
  projects: Project[];
  onClose(): void;
  onCreated(link: Link): void;
}

const FIELDS = ['destination', 'title', 'slug', 'tags', 'projectId', 'params'];

function NewLinkForm({ projects, onClose, onCreated }: Omit<NewLinkDialogProps, 'open'>) {
  const { account } = useSession();
  const target = useDestination('', []);
  const [title, setTitle] = useState('');
  const [slug, setSlug] = useState('');
  const [tags, setTags] = useState('');
  const [projectId, setProjectId] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const ready = target.lift();
    setBusy(true);
    setError(null);
    try {
      const link = await createLink({
        destination: ready.destination,
        title: title.trim() || undefined,
        slug: account?.superuser && slug.trim() ? slug.trim() : undefined,
        tags: splitList(tags),
        projectId: projectId || null,
        params: paramsFromRows(ready.rows),
      });
      onCreated(link);
    } catch (err) {
      setError(toApiError(err));
      setBusy(false);
    }
  };

  return (
    <form class="stack" onSubmit={submit}>
      <FormError error={error} fields={FIELDS} />
      <DestinationField state={target} error={errorFor(error, 'destination')} />
      <Field label="Title" hint="Optional." value={title} onValue={setTitle} error={errorFor(error, 'title')} />
      {account?.superuser && (
        <Field
          label="Custom slug"
          hint="Optional: letters, digits, - and _. Leave empty for a random one."
          value={slug}
          onValue={setSlug}
          spellcheck={false}
          error={errorFor(error, 'slug')}
        />
      )}
      <Field label="Tags" hint="Separated by commas." value={tags} onValue={setTags} error={errorFor(error, 'tags')} />
      {projects.length > 0 && (
        <SelectField
          label="Project"
          value={projectId}
          onValue={setProjectId}
          options={[{ value: '', label: 'No project' }, ...projects.map((p) => ({ value: p.id, label: p.name }))]}
          error={errorFor(error, 'projectId')}
        />
      )}
      <ParamsEditor
        legend="Tracking parameters"
        rows={target.rows}
        onRows={target.setRows}
        notice={target.notice}
        error={errorFor(error, 'params')}
      />
      <div class="actions">
        <button type="button" class="button secondary" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" class="button primary" disabled={busy} aria-busy={busy}>
          Create
        </button>
      </div>
    </form>
  );
}

export function NewLinkDialog({ open, onClose, ...rest }: NewLinkDialogProps) {
  return (
    <Dialog open={open} title="New link" onClose={onClose}>
      <NewLinkForm onClose={onClose} {...rest} />
    </Dialog>
  );
}
