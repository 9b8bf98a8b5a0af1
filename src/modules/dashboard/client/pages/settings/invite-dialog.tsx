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
import { CheckboxField, Field } from '../../components/field';
import { FormActions } from '../../components/form-actions';
import { errorFor, FormError } from '../../components/form-error';
import { RadioField } from '../../components/radio-field';
import { formatUtc } from '../../lib/format';
import { useResource, useSubmit } from '../../lib/hooks';

type Role = InviteItem['role'];

export const ROLE_OPTIONS: { value: Role; label: string }[] = [
  { value: 'viewer', label: 'Viewer: reads links and statistics' },
  { value: 'editor', label: 'Editor: creates and changes links, projects and tags' },
  { value: 'admin', label: 'Admin: everything, accounts and settings included' },
];

/** Checkboxes of the workspace's projects; none checked means every link. */
function ProjectChoices({
  chosen,
  onChosen,
  error,
}: {
  chosen: string[];
  onChosen(ids: string[]): void;
  error: string | null;
}) {
  const projects = useResource(listProjects, []);
  const items = projects.data?.projects ?? [];
  if (items.length === 0) return null;
  const toggle = (id: string, on: boolean) => onChosen(on ? [...chosen, id] : chosen.filter((c) => c !== id));
  return (
    <fieldset class="choices" aria-invalid={error ? true : undefined}>
      <legend>Limit to projects</legend>
      <p class="hint">None checked: every link. Checked: only the links of those projects.</p>
      {items.map((p) => (
        <CheckboxField key={p.id} label={p.name} checked={chosen.includes(p.id)} onChecked={(on) => toggle(p.id, on)} />
      ))}
      {error && <p class="field-error">{error}</p>}
    </fieldset>
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
  const [projects, setProjects] = useState<string[]>([]);
  const [created, setCreated] = useState<{ url: string; expiresAt: number } | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    // An admin sees every link: no projects are sent for one.
    const limit = role === 'admin' || projects.length === 0 ? null : projects;
    setCreated(await createInvite({ email: email.trim(), role, projects: limit }));
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
      <RadioField<Role>
        legend="Role"
        name="role"
        value={role}
        onValue={setRole}
        options={ROLE_OPTIONS}
        error={errorFor(error, 'role')}
      />
      {role !== 'admin' && (
        <ProjectChoices chosen={projects} onChosen={setProjects} error={errorFor(error, 'projects')} />
      )}
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
