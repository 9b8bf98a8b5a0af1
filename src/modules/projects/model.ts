/** Project schemas. */
import { t } from 'elysia';
import { fieldError } from '../../http/errors';

export const PROJECT_NAME_LENGTH = 100;

export const ProjectModel = t.Object(
  {
    id: t.String(),
    name: t.String(),
    linkCount: t.Integer({ description: 'Links in the project, archived ones included.' }),
    createdAt: t.Integer(),
    updatedAt: t.Integer(),
  },
  { title: 'Project' },
);
export type Project = typeof ProjectModel.static;

export const ProjectListModel = t.Object({
  projects: t.Array(ProjectModel),
  unfiledCount: t.Integer({ description: 'Links in no project.' }),
  totalCount: t.Integer({ description: 'All links.' }),
});

export const ProjectNameBody = t.Object({
  name: t.String({
    description: `1 to ${PROJECT_NAME_LENGTH} characters, trimmed; unique without regard to case.`,
    error: fieldError('name', `name must be a string of 1 to ${PROJECT_NAME_LENGTH} characters`),
  }),
});

export const ProjectDeletedModel = t.Object({
  id: t.String(),
  deleted: t.Literal(true),
  unfiledLinks: t.Integer({ description: 'Links moved to unfiled (never deleted).' }),
});

export const ProjectIdParams = t.Object({ id: t.String() });
