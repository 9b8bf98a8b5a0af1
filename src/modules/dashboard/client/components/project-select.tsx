/** Choosing a project for a link, a bulk paste or a selection: "none" first, then each project by name. */
import type { Project } from '../api/types';
import { SelectField } from './field';

export const projectOptions = (projects: Project[]) => projects.map((p) => ({ value: p.id, label: p.name }));

export interface ProjectSelectProps {
  projects: Project[];
  /** A project id, or '' for none. */
  value: string;
  onValue(value: string): void;
  error?: string | null;
  /** What choosing no project means here. */
  none?: string;
}

export function ProjectSelect({ projects, value, onValue, error, none = 'No project' }: ProjectSelectProps) {
  return (
    <SelectField
      label="Project"
      value={value}
      onValue={onValue}
      blank={none}
      options={projectOptions(projects)}
      error={error}
    />
  );
}
