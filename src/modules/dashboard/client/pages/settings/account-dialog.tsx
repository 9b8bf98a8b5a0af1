/**
 * An admin creates an account (email, first password, role, projects) or changes one (role,
 * projects). A refusal (the last active admin cannot be demoted) shows under the field it names.
 */
import { useState } from 'preact/hooks';
import { createAccount, updateAccount } from '../../api/app';
import type { AccountItem, Project } from '../../api/types';
import { CredentialsFields } from '../../components/credentials-fields';
import { Dialog } from '../../components/dialog';
import { SelectField } from '../../components/field';
import { FormActions } from '../../components/form-actions';
import { errorFor, FormError } from '../../components/form-error';
import { LimitField } from '../../components/limit-field';
import { useSubmit } from '../../lib/hooks';

type Role = AccountItem['role'];

export const ROLE_OPTIONS: { value: Role; label: string }[] = [
  { value: 'admin', label: 'Admin' },
  { value: 'editor', label: 'Editor' },
  { value: 'viewer', label: 'Viewer' },
];
const ROLE_HINT =
  'Admin: everything, accounts and domains too. Editor: creates and changes links, projects and tags. Viewer: reads links and statistics.';

function RoleAndProjects(props: {
  role: Role;
  onRole(role: Role): void;
  projects: string[] | null;
  onProjects(projects: string[] | null): void;
  choices: Project[];
  error: ReturnType<typeof useSubmit>['error'];
}) {
  return (
    <>
      <SelectField
        label="Role"
        value={props.role}
        onValue={(v) => props.onRole(v as Role)}
        options={ROLE_OPTIONS}
        hint={ROLE_HINT}
        error={errorFor(props.error, 'role')}
      />
      {props.role !== 'admin' && (
        <LimitField
          legend="Projects"
          all="All projects"
          hint="Limited to projects, the account sees and changes only the links in them."
          options={props.choices.map((p) => ({ value: p.id, label: p.name }))}
          value={props.projects}
          onValue={props.onProjects}
          error={errorFor(props.error, 'projects')}
        />
      )}
    </>
  );
}

function CreateForm({ projects, onDone, onClose }: { projects: Project[]; onDone(): void; onClose(): void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('editor');
  const [limit, setLimit] = useState<string[] | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    await createAccount({ email: email.trim(), password, role, projects: role === 'admin' ? null : limit });
    onDone();
  });
  return (
    <form class="stack" onSubmit={submit}>
      <FormError error={error} fields={['email', 'password', 'role', 'projects']} />
      <CredentialsFields
        purpose="new-other"
        passwordHint="At least 8 characters. Give it to the person; they can change it under Settings."
        email={email}
        onEmail={setEmail}
        password={password}
        onPassword={setPassword}
        error={error}
      />
      <RoleAndProjects
        role={role}
        onRole={setRole}
        projects={limit}
        onProjects={setLimit}
        choices={projects}
        error={error}
      />
      <FormActions submit="Create account" busy={busy} onCancel={onClose} />
    </form>
  );
}

function EditForm(props: { account: AccountItem; projects: Project[]; onDone(): void; onClose(): void }) {
  const [role, setRole] = useState<Role>(props.account.role);
  const [limit, setLimit] = useState<string[] | null>(props.account.projects);
  const { busy, error, submit } = useSubmit(async () => {
    await updateAccount(props.account.id, role === 'admin' ? { role } : { role, projects: limit });
    props.onDone();
  });
  return (
    <form class="stack" onSubmit={submit}>
      <FormError error={error} fields={['role', 'projects']} />
      <p>
        Lowering the role or the projects narrows this account's API keys at once: a viewer's write keys become read
        keys.
      </p>
      <RoleAndProjects
        role={role}
        onRole={setRole}
        projects={limit}
        onProjects={setLimit}
        choices={props.projects}
        error={error}
      />
      <FormActions submit="Save" busy={busy} onCancel={props.onClose} />
    </form>
  );
}

export function AccountDialog(props: {
  open: boolean;
  /** The account to change, or null to create one. */
  account: AccountItem | null;
  projects: Project[];
  onDone(): void;
  onClose(): void;
}) {
  return (
    <Dialog
      open={props.open}
      title={props.account ? `Change ${props.account.email}` : 'New account'}
      onClose={props.onClose}
    >
      {props.account ? (
        <EditForm
          key={props.account.id}
          account={props.account}
          projects={props.projects}
          onDone={props.onDone}
          onClose={props.onClose}
        />
      ) : (
        <CreateForm projects={props.projects} onDone={props.onDone} onClose={props.onClose} />
      )}
    </Dialog>
  );
}
