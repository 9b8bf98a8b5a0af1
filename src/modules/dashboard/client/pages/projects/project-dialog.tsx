/** Naming a project: a new one, or a new name for one that exists (names are unique, any case). */
import { useState } from 'preact/hooks';
import { createProject, renameProject } from '../../api/projects';
import type { Project } from '../../api/types';
import { Dialog } from '../../components/dialog';
import { Field } from '../../components/field';
import { FormActions } from '../../components/form-actions';
import { errorFor, FormError } from '../../components/form-error';
import { useSubmit } from '../../lib/hooks';

interface ProjectFormProps {
  /** The project being renamed; null when creating one. */
  project: Project | null;
  onDone(project: Project): void;
  onCancel(): void;
}

function ProjectForm({ project, onDone, onCancel }: ProjectFormProps) {
  const [name, setName] = useState(project?.name ?? '');
  const { busy, error, submit } = useSubmit(async () => {
    const trimmed = name.trim();
    onDone(project ? await renameProject(project.id, trimmed) : await createProject(trimmed));
  });
  return (
    <form class="stack" onSubmit={submit}>
      <FormError error={error} fields={['name']} />
      <Field
        label="Name"
        required
        autoComplete="off"
        hint="Up to 100 characters. Two projects cannot share a name."
        value={name}
        onValue={setName}
        error={errorFor(error, 'name')}
      />
      <FormActions submit={project ? 'Rename' : 'Create project'} busy={busy} onCancel={onCancel} />
    </form>
  );
}

export function ProjectDialog(props: ProjectFormProps & { open: boolean }) {
  return (
    <Dialog
      open={props.open}
      title={props.project ? `Rename ${props.project.name}` : 'New project'}
      onClose={props.onCancel}
    >
      <ProjectForm {...props} />
    </Dialog>
  );
}
