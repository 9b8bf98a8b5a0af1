/**
 * Creating an API key: name, scope, expiry and optional limits to projects and domains (within
 * the account's own); then its secret, shown this once with a copy button. The secret lives only
 * in this dialog's state and is gone when the dialog closes.
 */
import { useState } from 'preact/hooks';
import { createKey } from '../../api/app';
import { listDomains } from '../../api/domains';
import { listProjects } from '../../api/projects';
import type { KeyItem, KeyScope } from '../../api/types';
import { CopyButton } from '../../components/copy-button';
import { Dialog } from '../../components/dialog';
import { Field, SelectField } from '../../components/field';
import { FormActions } from '../../components/form-actions';
import { errorFor, FormError } from '../../components/form-error';
import { LimitField } from '../../components/limit-field';
import { RadioField } from '../../components/radio-field';
import { useResource, useSubmit } from '../../lib/hooks';
import { useSession } from '../../session';

const DAY = 86_400_000;
const SCOPE_OPTIONS: { value: KeyScope; label: string }[] = [
  { value: 'read', label: 'Read: reads links and statistics, changes nothing' },
  { value: 'write', label: 'Write: also creates, changes and deletes links' },
  { value: 'create', label: 'Create only: creates links, nothing else (for an extension or a form)' },
];
const EXPIRY_OPTIONS = [
  { value: '', label: 'Never' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In a year' },
];

function KeyForm({ onCreated, onClose }: { onCreated(item: KeyItem): void; onClose(): void }) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<KeyScope>('read');
  const [days, setDays] = useState('');
  const [projects, setProjects] = useState<string[] | null>(null);
  const [domains, setDomains] = useState<string[] | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const { account } = useSession();
  const projectList = useResource(listProjects, []).data?.projects ?? [];
  const domainList = useResource(listDomains, []).data?.domains ?? [];
  // A key never has more than its account: a viewer's is read or create, and a limited account's
  // key chooses among the account's own projects.
  const scopes = account?.role === 'viewer' ? SCOPE_OPTIONS.filter((o) => o.value !== 'write') : SCOPE_OPTIONS;
  const mine = account?.projects ?? null;
  const projectChoices = projectList.filter((p) => mine === null || mine.includes(p.id));
  const { busy, error, submit } = useSubmit(async () => {
    const expiresAt = days ? Date.now() + Number(days) * DAY : null;
    const created = await createKey({ name: name.trim() || undefined, scope, expiresAt, projects, domains });
    onCreated(created.item);
    setSecret(created.key);
  });

  if (secret !== null) {
    return (
      <div class="stack">
        <p class="alert notice">This is the only time the key is shown. Copy it now and keep it somewhere safe.</p>
        <Field label="Your new API key" value={secret} onValue={() => {}} readOnly spellcheck={false} />
        <div class="actions">
          <CopyButton text={secret} what="API key" />
          <button type="button" class="button primary" onClick={onClose}>
            Done
          </button>
        </div>
      </div>
    );
  }

  return (
    <form class="stack" onSubmit={submit}>
      <FormError error={error} fields={['name', 'scope', 'expiresAt', 'projects', 'domains']} />
      <Field
        label="Name"
        hint="Optional: what uses it."
        value={name}
        onValue={setName}
        error={errorFor(error, 'name')}
      />
      <RadioField<KeyScope>
        legend="Scope"
        name="scope"
        value={scope}
        onValue={setScope}
        options={scopes}
        error={errorFor(error, 'scope')}
      />
      <LimitField
        legend="Projects"
        all={mine === null ? 'All projects' : "All of your account's projects"}
        hint="Limited to projects, this key sees and changes only the links in them."
        options={projectChoices.map((p) => ({ value: p.id, label: p.name }))}
        value={projects}
        onValue={setProjects}
        error={errorFor(error, 'projects')}
      />
      <LimitField
        legend="Domains"
        all="All domains"
        hint="Limited to domains, this key sees and changes only the links on them."
        options={domainList.map((d) => ({ value: d.host, label: d.host }))}
        value={domains}
        onValue={setDomains}
        error={errorFor(error, 'domains')}
      />
      <SelectField
        label="Expires"
        value={days}
        onValue={setDays}
        options={EXPIRY_OPTIONS}
        error={errorFor(error, 'expiresAt')}
      />
      <FormActions submit="Create" busy={busy} onCancel={onClose} />
    </form>
  );
}

export function KeyDialog(props: { open: boolean; onCreated(item: KeyItem): void; onClose(): void }) {
  return (
    <Dialog open={props.open} title="New API key" onClose={props.onClose}>
      <KeyForm onCreated={props.onCreated} onClose={props.onClose} />
    </Dialog>
  );
}
