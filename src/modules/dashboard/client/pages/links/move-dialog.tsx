/** Moving every selected link into one project, or out of any project. */
import { useState } from 'preact/hooks';
import { moveToProject } from '../../api/bulk';
import type { Project } from '../../api/types';
import { Dialog } from '../../components/dialog';
import { FormActions } from '../../components/form-actions';
import { errorFor, FormError } from '../../components/form-error';
import { ProjectSelect } from '../../components/project-select';
import { useSubmit } from '../../lib/hooks';
import { linksText } from './outcome';
import type { BulkDialogProps } from './params-dialog';

type MoveProps = BulkDialogProps & { projects: Project[] };

function MoveForm({ ids, projects, onDone, onCancel }: Omit<MoveProps, 'open'>) {
  const [projectId, setProjectId] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    const answer = await moveToProject(ids, projectId || null);
    const where = projects.find((p) => p.id === projectId)?.name;
    const already = answer.unchanged ? ` ${linksText(answer.unchanged)} were there already.` : '';
    const gone = answer.notFound.length ? ` ${linksText(answer.notFound.length)} no longer existed.` : '';
    const moved = where
      ? `Moved ${linksText(answer.moved)} to ${where}.`
      : `Took ${linksText(answer.moved)} out of their project.`;
    onDone({ text: moved + already + gone });
  });
  return (
    <form class="stack" onSubmit={submit}>
      <FormError error={error} fields={['projectId']} />
      <ProjectSelect
        projects={projects}
        value={projectId}
        onValue={setProjectId}
        none="No project (take them out)"
        error={errorFor(error, 'projectId')}
      />
      {projects.length === 0 && (
        <p class="hint">
          There are no projects yet: create one on the <a href="/app/projects">Projects</a> page.
        </p>
      )}
      <FormActions submit="Move links" busy={busy} onCancel={onCancel} />
    </form>
  );
}

export function MoveDialog({ open, onCancel, ...rest }: MoveProps) {
  return (
    <Dialog open={open} title={`Move ${linksText(rest.ids.length)}`} onClose={onCancel}>
      <MoveForm onCancel={onCancel} {...rest} />
    </Dialog>
  );
}
