/**
 * /app/projects: the projects with their link counts (and the links in none), each leading to
 * the links list filtered by it; create, rename, and delete (its links stay, unfiled).
 */
import { useRef, useState } from 'preact/hooks';
import { deleteProject, listProjects } from '../api/projects';
import type { Project } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { DataTable } from '../components/data-table';
import { EmptyState, ResourceStatus, StatusLine } from '../components/feedback';
import { formatNumber } from '../lib/format';
import { useAction, usePageTitle, useResource } from '../lib/hooks';
import { usePowers } from '../lib/powers';
import { ProjectDialog } from './projects/project-dialog';

const linksOf = (project: string) => `/app?project=${encodeURIComponent(project)}`;
const count = (n: number) => `${formatNumber(n)} ${n === 1 ? 'link' : 'links'}`;

export function ProjectsPage() {
  usePageTitle('Projects');
  const projects = useResource(listProjects, []);
  const [editing, setEditing] = useState<Project | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Project | null>(null);
  const [done, setDone] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  const action = useAction();
  const data = projects.data;
  const powers = usePowers();
  // Creating and deleting projects reaches beyond a person limited to some: not theirs.
  const mayCreate = powers.change && powers.projects === null;

  const saved = (project: Project) => {
    setDone(editing === 'new' ? `Created project ${project.name}.` : `Renamed to ${project.name}.`);
    setEditing(null);
    projects.reload();
  };
  const remove = async (project: Project) => {
    const removed = await action.run(() => deleteProject(project.id));
    setDeleting(null);
    if (!removed) return;
    const n = project.linkCount;
    const unfiled = n === 0 ? '' : `; ${n === 1 ? 'its link is' : `its ${count(n)} are`} now in no project`;
    setDone(`Deleted project ${project.name}${unfiled}.`);
    projects.reload();
    // Its row, and the button that opened the dialog, are gone: start again from the top.
    heading.current?.focus();
  };

  return (
    <>
      <div class="page-head">
        <h1 ref={heading} tabIndex={-1}>
          Projects
        </h1>
        {mayCreate && (
          <button type="button" class="button primary" onClick={() => setEditing('new')}>
            New project
          </button>
        )}
      </div>
      <p>A project is a folder for links: a link is in one project or in none.</p>
      {!powers.change && <p class="hint view-only-note">You can view projects; ask an admin to change them.</p>}
      {powers.change && !mayCreate && (
        <p class="hint view-only-note">You work in these projects; ask an admin to create or delete one.</p>
      )}
      <StatusLine text={done} />
      <ResourceStatus resource={projects} action={action} />
      {data && data.projects.length === 0 && (
        <EmptyState title="No projects yet">
          {mayCreate ? (
            <p>
              Create one with New project, then choose it for a link on its page, in New link, in Bulk create, or for
              several links at once from the links list.
            </p>
          ) : (
            <p>The projects of this workspace appear here.</p>
          )}
        </EmptyState>
      )}
      {data && data.projects.length > 0 && (
        <DataTable columns={['Project', 'Links']} actions={powers.change}>
          {data.projects.map((project) => (
            <tr key={project.id}>
              <td class="wrap">
                <a href={linksOf(project.id)}>{project.name}</a>
              </td>
              <td>{count(project.linkCount)}</td>
              {powers.change && (
                <td>
                  <div class="row-actions">
                    <button
                      type="button"
                      class="button small secondary"
                      aria-label={`Rename project ${project.name}`}
                      onClick={() => setEditing(project)}
                    >
                      Rename
                    </button>
                    {mayCreate && (
                      <button
                        type="button"
                        class="button small secondary"
                        aria-label={`Delete project ${project.name}`}
                        onClick={() => setDeleting(project)}
                      >
                        Delete
                      </button>
                    )}
                  </div>
                </td>
              )}
            </tr>
          ))}
          {/* A person limited to projects sees no link outside them. */}
          {powers.projects === null && (
            <tr class="unfiled">
              <td>
                <a href={linksOf('none')}>No project</a>
              </td>
              <td>{count(data.unfiledCount)}</td>
              {powers.change && <td />}
            </tr>
          )}
        </DataTable>
      )}
      {data && (
        <p class="hint table-note">
          {count(data.totalCount)} in all. Counts include archived links, which the links list shows under the status
          Archived.
        </p>
      )}
      <ProjectDialog
        open={editing !== null}
        project={editing === 'new' ? null : editing}
        onDone={saved}
        onCancel={() => setEditing(null)}
      />
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete project ${deleting?.name ?? ''}?`}
        confirm="Delete project"
        onConfirm={() => (deleting ? remove(deleting) : undefined)}
        onCancel={() => setDeleting(null)}
      >
        <p>
          Its links ({count(deleting?.linkCount ?? 0)}) stay, in no project: nothing else changes for them. The project
          cannot be brought back.
        </p>
      </ConfirmDialog>
    </>
  );
}
