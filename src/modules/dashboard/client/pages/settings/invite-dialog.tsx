/**
 * Inviting someone: email, role and (for an editor or a viewer) the projects they are limited
 * to; then the one-time address, shown this once with a copy button. The address lives only in
 * this dialog's state and is gone when the dialog closes.
 */
import { useState } from 'preact/hooks';
import { createInvite, type InviteItem } from '../../api/invites';
import { listProjects } from '../../api/projects';
import { CopyButton } from '../../components/copy-button';
import { Dialog } from '../../components/dialog';
import { Field, SelectField } from '../../components/field';
import { FormActions } from '../../components/form-actions';
import { errorFor, FormError } from '../../components/form-error';
import { LimitField } from '../../components/limit-field';
import { formatUtc } from '../../lib/format';
import { useResource, useSubmit } from '../../lib/hooks';
import { ROLE_OPTIONS } from './account-dialog';

type Role = InviteItem['role'];

const ROLE_HINT =
  'Admin: everything, accounts and domains too. Editor: creates and changes links, projects and tags. Viewer: reads links and statistics.';

/** The projects an editor's or a viewer's account will be limited to, as an account's are chosen. */
function ProjectLimit(props: { value: string[] | null; onValue(v: string[] | null): void; error: string | null }) {
  const projects = useResource(listProjects, []);
  return (
    <LimitField
      legend="Projects"
      all="All projects"
      hint="Limited to projects, the account sees and changes only the links in them."
      options={(projects.data?.projects ?? []).map((p) => ({ value: p.id, label: p.name }))}
      value={props.value}
      onValue={props.onValue}
      error={props.error}
    />
  );
}

function Created({ url, expiresAt, onClose }: { url: string; expiresAt: number; onClose(): void }) {
  return (
    <div class="stack">
      <p class="alert notice">
        This is the only time the invite address is shown. Send it to the person: it works once, until{' '}
        {formatUtc(expiresAt)}.
      </p>
      <Field label="Invite address" value={url} onValue={() => {}} readOnly spellcheck={false} />
      <div class="actions">
        <CopyButton text={url} what="invite address" />
        <button type="button" class="button primary" onClick={onClose}>
          Done
        </button>
      </div>
    </div>
  );
}

function InviteForm({ onCreated, onClose }: { onCreated(): void; onClose(): void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('editor');
  const [projects, setProjects] = useState<string[] | null>(null);
  const [created, setCreated] = useState<{ url: string; expiresAt: number } | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    // An admin sees every link: no projects are sent for one.
    setCreated(await createInvite({ email: email.trim(), role, projects: role === 'admin' ? null : projects }));
    onCreated();
  });
  if (created) return <Created url={created.url} expiresAt={created.expiresAt} onClose={onClose} />;
  return (
    <form class="stack" onSubmit={submit}>
      <FormError error={error} fields={['email', 'role', 'projects']} />
      <Field
        label="Email"
        type="email"
        autoComplete="off"
        required
        value={email}
        onValue={setEmail}
        error={errorFor(error, 'email')}
      />
      <SelectField
        label="Role"
        value={role}
        onValue={(v) => setRole(v as Role)}
        options={ROLE_OPTIONS}
        hint={ROLE_HINT}
        error={errorFor(error, 'role')}
      />
      {role !== 'admin' && <ProjectLimit value={projects} onValue={setProjects} error={errorFor(error, 'projects')} />}
      <FormActions submit="Create invite" busy={busy} onCancel={onClose} />
    </form>
  );
}

export function InviteDialog(props: { open: boolean; onCreated(): void; onClose(): void }) {
  return (
    <Dialog open={props.open} title="Invite someone" onClose={props.onClose}>
      <InviteForm onCreated={props.onCreated} onClose={props.onClose} />
    </Dialog>
  );
}
