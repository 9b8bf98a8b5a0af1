/**
 * Quick create: a destination, and optionally a title, tags, a project, tracking parameters and
 * (superusers only) a custom slug; under "More options" the rest a link can be created with:
 * expiry, click limit, redirect status, query forwarding, fallback address, password and social
 * preview (rules are added on the link's page). A pasted URL's utm_ keys move into the
 * parameters editor before anything is saved, so the person sees what the server will do
 * (destination-field.tsx says when). The browser's own validation is off: the API judges, in
 * words shown under the field; a failed Create takes the person to that field, opening
 * "More options" when it is in there.
 */
import { useState } from 'preact/hooks';
import { createLink } from '../../api/links';
import type { Domain, Link, Project } from '../../api/types';
import { DestinationField, DestinationParams, useDestination } from '../../components/destination-field';
import { Dialog } from '../../components/dialog';
import { Field, SelectField } from '../../components/field';
import { FilingFields, useFiling } from '../../components/filing-fields';
import { FormActions } from '../../components/form-actions';
import { errorFor, FormError } from '../../components/form-error';
import { defaultHost, domainOptions } from '../../lib/domains';
import { fromUtcInput } from '../../lib/format';
import { useErrorFocus, useSubmit, useUnsavedGuard } from '../../lib/hooks';
import { paramsFromRows } from '../../lib/params';
import { useSession } from '../../session';
import { EndFields } from '../link/end-fields';
import { PasswordFields, passwordAfterSave, usePassword } from '../link/password-fields';
import { PreviewFields, usePreview } from '../link/preview-fields';
import { RedirectFields, useRedirectOptions } from '../link/redirect-fields';

export interface NewLinkDialogProps {
  open: boolean;
  projects: Project[];
  /** The workspace's domains: a choice among them when there is more than one. */
  domains: Domain[];
  onClose(): void;
  onCreated(link: Link): void;
}

const FIELDS = [
  'destination',
  'domain',
  'title',
  'slug',
  'tags',
  'projectId',
  'params',
  'expiresAt',
  'clickLimit',
  'fallbackUrl',
  'redirectStatus',
  'forwardQuery',
  'password',
  'preview',
  'preview.title',
  'preview.description',
  'preview.image',
];

const NOT_PROTECTED = { passwordProtected: false };

function NewLinkForm({ projects, domains, onClose, onCreated }: Omit<NewLinkDialogProps, 'open'>) {
  const { account } = useSession();
  const target = useDestination('', []);
  // Until one is picked, the default domain (also when the domains arrive after the dialog opened).
  const [picked, setDomain] = useState('');
  const domain = picked || defaultHost(domains);
  const choosesDomain = domains.length > 1;
  const [title, setTitle] = useState('');
  const [slug, setSlug] = useState('');
  const filing = useFiling();
  const [expires, setExpires] = useState('');
  const [limit, setLimit] = useState('');
  const options = useRedirectOptions();
  const password = usePassword();
  const preview = usePreview(null);
  // Typed into and not created yet: a page unload asks first (closing the dialog is the person's choice).
  const [dirty, setDirty] = useState(false);
  useUnsavedGuard(dirty);
  const { busy, error, submit } = useSubmit(async () => {
    const ready = target.lift();
    const link = await createLink({
      destination: ready.destination,
      domain: choosesDomain && domain ? domain : undefined,
      title: title.trim() || undefined,
      slug: account?.superuser && slug.trim() ? slug.trim() : undefined,
      ...filing.sent,
      params: paramsFromRows(ready.rows),
      expiresAt: fromUtcInput(expires) ?? undefined,
      clickLimit: limit.trim() === '' ? undefined : Number(limit),
      ...options.sent,
      password: password.sent ?? undefined,
      preview: preview.sent ?? undefined,
    });
    setDirty(false);
    onCreated(link);
  });
  const formRef = useErrorFocus<HTMLFormElement>(error);

  return (
    <form class="stack" ref={formRef} noValidate onSubmit={submit} onInput={() => setDirty(true)}>
      <FormError error={error} fields={FIELDS} />
      <DestinationField state={target} error={errorFor(error, 'destination')} />
      <Field label="Title" hint="Optional." value={title} onValue={setTitle} error={errorFor(error, 'title')} />
      {choosesDomain && (
        <SelectField
          label="Domain"
          hint="What the short link starts with."
          value={domain}
          onValue={setDomain}
          options={domainOptions(domains)}
          error={errorFor(error, 'domain')}
        />
      )}
      {!account?.superuser && <p class="hint">Only admins can choose a custom slug: this link gets a random one.</p>}
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
      <details class="more-options">
        <summary>More options</summary>
        <div class="stack">
          <p class="hint">Expiry, click limit, redirect, password and social preview. Rules: on the link's page.</p>
          <EndFields
            expires={expires}
            onExpires={setExpires}
            limit={limit}
            onLimit={setLimit}
            fallback={options.fallback}
            error={error}
          />
          <RedirectFields state={options} error={error} />
          <PasswordFields link={NOT_PROTECTED} state={password} error={error} />
          <PreviewFields state={preview} error={error} passwordSet={passwordAfterSave(NOT_PROTECTED, password)} />
        </div>
      </details>
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
