/**
 * Where links are filed: their tags (typed as a comma-separated list) and their project. The
 * same two fields in New link, on a link's page and in Bulk create, each under its API error.
 */
import { useState } from 'preact/hooks';
import type { ApiError } from '../api/client';
import type { Project } from '../api/types';
import { splitList } from '../lib/format';
import { Field } from './field';
import { errorFor } from './form-error';
import { ProjectSelect } from './project-select';

export interface FilingState {
  tags: string;
  setTags(value: string): void;
  projectId: string;
  setProjectId(value: string): void;
  /** As the API takes them. */
  sent: { tags: string[]; projectId: string | null };
}

export function useFiling(initialTags: string[] = [], initialProjectId: string | null = null): FilingState {
  const [tags, setTags] = useState(initialTags.join(', '));
  const [projectId, setProjectId] = useState(initialProjectId ?? '');
  return { tags, setTags, projectId, setProjectId, sent: { tags: splitList(tags), projectId: projectId || null } };
}

export interface FilingFieldsProps {
  state: FilingState;
  projects: Project[];
  error: ApiError | null;
  tagsHint?: string;
}

/** The project choice appears once there are projects to choose from. */
export function FilingFields({ state, projects, error, tagsHint = 'Separated by commas.' }: FilingFieldsProps) {
  return (
    <>
      <Field label="Tags" hint={tagsHint} value={state.tags} onValue={state.setTags} error={errorFor(error, 'tags')} />
      {projects.length > 0 && (
        <ProjectSelect
          projects={projects}
          value={state.projectId}
          onValue={state.setProjectId}
          error={errorFor(error, 'projectId')}
        />
      )}
    </>
  );
}
