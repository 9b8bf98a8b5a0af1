/**
 * Quick create: a destination, and optionally a title, tags, a project, tracking parameters and
 * (superusers only) a custom slug. A pasted URL's utm_ keys move into the parameters editor
 * before anything is saved, so the person sees what the server will do (destination-field.tsx
 * says when). The browser's own validation is off: the API judges, in words shown under the field.
 */
import { useState } from 'preact/hooks';
import { createLink } from '../api/links';
import type { Link, Project } from '../api/types';
import { useSubmit } from '../lib/hooks';
import { paramsFromRows } from '../lib/params';
import { useSession } from '../session';
import { DestinationField, DestinationParams, useDestination } from './destination-field';
import { Dialog } from './dialog';
import { Field } from './field';
import { FilingFields, useFiling } from './filing-fields';
import { FormActions } from './form-actions';
import { errorFor, FormError } from './form-error';

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
  const filing = useFiling();
  const { busy, error, submit } = useSubmit(async () => {
    const ready = target.lift();
    const link = await createLink({
      destination: ready.destination,
      title: title.trim() || undefined,
      slug: account?.superuser && slug.trim() ? slug.trim() : undefined,
      ...filing.sent,
      params: paramsFromRows(ready.rows),
    });
    onCreated(link);
  });

  return (
    <form class="stack" noValidate onSubmit={submit}>
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
      <FilingFields state={filing} projects={projects} error={error} />
      <DestinationParams state={target} error={errorFor(error, 'params')} />
      <FormActions submit="Create" busy={busy} onCancel={onClose} />
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
