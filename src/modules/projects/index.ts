/** /projects routes. */
import { Elysia } from 'elysia';
import { principalPlugin } from '../../http/auth';
import { errors, IdParams } from '../../http/models';
import type { ProjectsDeps } from './deps';
import { ProjectDeletedModel, ProjectListModel, ProjectModel, ProjectNameBody } from './model';
import { createProject, deleteProject, listProjects, renameProject } from './service';

const tags = ['Projects'];

export function projectsRoutes(deps: ProjectsDeps) {
  return new Elysia({ name: 'slink.projects', prefix: '/projects' })
    .use(principalPlugin)
    .get('', ({ access }) => listProjects(deps, access), {
      response: { 200: ProjectListModel, ...errors(401, 429) },
      detail: {
        tags,
        summary: 'List projects',
        description:
          'Sorted by name, with link counts, the number of unfiled links and the total. A caller limited to projects or domains gets its projects, and counts of the links it sees.',
      },
    })
    .post(
      '',
      ({ body, set, access }) => {
        set.status = 201;
        return createProject(deps, access, body);
      },
      {
        parse: 'json',
        body: ProjectNameBody,
        response: { 201: ProjectModel, ...errors(400, 401, 403, 409, 429) },
        detail: {
          tags,
          summary: 'Create a project',
          description: '409 conflict when the name is taken (case-insensitive).',
        },
      },
    )
    .patch('/:id', ({ params, body, access }) => renameProject(deps, access, params.id, body), {
      parse: 'json',
      params: IdParams,
      body: ProjectNameBody,
      response: { 200: ProjectModel, ...errors(400, 401, 403, 404, 409, 429) },
      detail: { tags, summary: 'Rename a project' },
    })
    .delete('/:id', ({ params, access }) => deleteProject(deps, access, params.id), {
      params: IdParams,
      response: { 200: ProjectDeletedModel, ...errors(401, 403, 404, 429) },
      detail: { tags, summary: 'Delete a project', description: 'Its links are unfiled, never deleted.' },
    });
}
