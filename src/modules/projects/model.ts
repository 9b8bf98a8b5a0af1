/** Project schemas. */
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { fieldError } from '../../http/errors';
import { DeletedModel, nullable } from '../../http/models';

export const PROJECT_NAME_LENGTH = 100;

export const ProjectModel = t.Object(
  {
    id: t.String(),
    name: t.String(),
    linkCount: Type.Integer({ description: 'Links in the project, archived ones included.' }),
    createdAt: Type.Integer(),
    updatedAt: Type.Integer(),
  },
  { title: 'Project' },
);
export type Project = typeof ProjectModel.static;

export const ProjectListModel = t.Object({
  projects: t.Array(ProjectModel),
  unfiledCount: Type.Integer({ description: 'Links in no project.' }),
  totalCount: Type.Integer({ description: 'All links.' }),
});

export const ProjectNameBody = t.Object({
  name: t.String({
    minLength: 1,
    maxLength: PROJECT_NAME_LENGTH,
    description: `1 to ${PROJECT_NAME_LENGTH} characters, trimmed; unique without regard to case.`,
    error: fieldError('name', `name must be a string of 1 to ${PROJECT_NAME_LENGTH} characters`),
  }),
});

/** The project of a link, or of links in bulk; null: unfiled. */
export const projectIdField = (options: { description?: string } = {}) =>
  nullable(t.String(), { ...options, error: fieldError('projectId', 'projectId must be a project id or null') });

export const ProjectDeletedModel = t.Object({
  ...DeletedModel.properties,
  unfiledLinks: Type.Integer({ description: 'Links moved to unfiled (never deleted).' }),
});
