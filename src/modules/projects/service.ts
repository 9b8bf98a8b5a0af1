/** Project verbs: folders for links. Deleting one unfiles its links, never deletes them. */
import type { Deps } from '../../deps';
import { conflict, invalid, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { hasControlChars } from '../../lib/text';
import { countLinksByProject, countLinksInProject } from '../links/repo';
import { unfileProjectLinks, writeLinks } from '../links/writes';
import { PROJECT_NAME_LENGTH, type Project } from './model';
import * as repo from './repo';
import type { ProjectRow } from './table';

function checkName(raw: string): string {
  const name = raw.trim();
  if (name === '' || name.length > PROJECT_NAME_LENGTH) {
    throw invalid('name', `name must be 1 to ${PROJECT_NAME_LENGTH} characters`);
  }
  if (hasControlChars(name)) throw invalid('name', 'name must not contain control characters');
  return name;
}

function ensureNameFree(deps: Deps, name: string, exceptId?: string): void {
  const existing = repo.findProjectByName(deps.db, name);
  if (existing && existing.id !== exceptId) throw conflict('name', `A project named "${existing.name}" already exists`);
}

function getProjectRowOrThrow(deps: Deps, id: string): ProjectRow {
  const row = repo.findProject(deps.db, id);
  if (!row) throw notFound('project');
  return row;
}

export function listProjects(deps: Deps): { projects: Project[]; unfiledCount: number; totalCount: number } {
  const counts = countLinksByProject(deps.db);
  let total = 0;
  for (const n of counts.values()) total += n;
  return {
    projects: repo.listProjectRows(deps.db).map((row) => ({ ...row, linkCount: counts.get(row.id) ?? 0 })),
    unfiledCount: counts.get(null) ?? 0,
    totalCount: total,
  };
}

export function createProject(deps: Deps, input: { name: string }): Project {
  const name = checkName(input.name);
  ensureNameFree(deps, name);
  const now = deps.clock.now();
  const row: ProjectRow = { id: newId('prj'), name, createdAt: now, updatedAt: now };
  repo.insertProject(deps.db, row);
  return { ...row, linkCount: 0 };
}

/** Renames a project; links show the new name at once (projectName is looked up, not copied). */
export function renameProject(deps: Deps, id: string, input: { name: string }): Project {
  const current = getProjectRowOrThrow(deps, id);
  const name = checkName(input.name);
  ensureNameFree(deps, name, id);
  let renamed = current;
  if (name !== current.name) {
    renamed = { ...current, name, updatedAt: Math.max(deps.clock.now(), current.updatedAt) };
    repo.renameProjectRow(deps.db, id, name, renamed.updatedAt);
  }
  return { ...renamed, linkCount: countLinksInProject(deps.db, id) };
}

export function deleteProject(deps: Deps, id: string): { id: string; deleted: true; unfiledLinks: number } {
  getProjectRowOrThrow(deps, id);
  // The links' write transaction (their rows change) deletes the project too: both happen, or neither.
  const unfiledLinks = writeLinks(deps, (w) => {
    const moved = unfileProjectLinks(w, id, deps.clock.now());
    repo.deleteProjectRow(deps.db, id);
    return moved;
  });
  return { id, deleted: true, unfiledLinks };
}
