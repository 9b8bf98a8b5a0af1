/**
 * Choosing a project for a link, a bulk paste or a selection: "none" first, then each project by
 * name. A person limited to projects sees only theirs (the API lists no other) and no "none": a
 * link of theirs is always in one of their projects, so the first is chosen until they pick.
 */
import { useEffect } from 'preact/hooks';
import type { Project } from '../api/types';
import { usePowers } from '../lib/powers';
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
  const limited = usePowers().projects !== null;
  const first = projects[0]?.id;
  useEffect(() => {
    if (limited && value === '' && first) onValue(first);
  }, [limited, value, first, onValue]);
  return (
    <SelectField
      label="Project"
      value={value}
      onValue={onValue}
      blank={limited ? undefined : none}
      options={projectOptions(projects)}
      error={error}
    />
  );
}
