/**
 * Project verbs: folders for links. Deleting one unfiles its links, never deletes them. A caller
 * limited to projects lists and renames only its own (another is not found), and every count
 * counts only the links it sees.
 */

import { isUniqueViolation } from '../../db/storage';
import { conflict, invalid, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { hasControlChars } from '../../lib/text';
import { type Access, linkFilter } from '../access/public';
import { auditEntry } from '../audit/public';
import type { ProjectsDeps } from './deps';
import { PROJECT_NAME_LENGTH, type Project } from './model';
import type { ProjectRow } from './store';

function checkName(raw: string): string {
  const name = raw.trim();
  if (name === '' || name.length > PROJECT_NAME_LENGTH) {
    throw invalid('name', `name must be 1 to ${PROJECT_NAME_LENGTH} characters`);
  }
  if (hasControlChars(name)) throw invalid('name', 'name must not contain control characters');
  return name;
}

const nameTaken = (name: string) => conflict('name', `A project named "${name}" already exists`);

async function ensureNameFree(deps: ProjectsDeps, name: string, exceptId?: string): Promise<void> {
  const existing = await deps.stores.projects.findByName(name);
  if (existing && existing.id !== exceptId) throw nameTaken(existing.name);
}

/** A write that met the unique index: the name was taken between the check and the write. */
async function written(write: Promise<void>, name: string): Promise<void> {
  try {
    await write;
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(name);
    throw err;
  }
}

/** The project, or 404 when there is none or it is outside the caller's projects: the same answer. */
async function getProjectRowOrThrow(deps: ProjectsDeps, access: Access, id: string): Promise<ProjectRow> {
  if (access.projects !== null && !access.projects.includes(id)) throw notFound('project');
  const row = await deps.stores.projects.find(id);
  if (!row) throw notFound('project');
  return row;
}

export async function listProjects(
  deps: ProjectsDeps,
  access: Access,
): Promise<{ projects: Project[]; unfiledCount: number; totalCount: number }> {
  const [counts, all] = await Promise.all([
    deps.stores.links.countByProject(linkFilter(access)),
    deps.stores.projects.list(),
  ]);
  const mine = access.projects;
  const rows = mine === null ? all : all.filter((row) => mine.includes(row.id));
  let total = 0;
  for (const n of counts.values()) total += n;
  return {
    projects: rows.map((row) => ({ ...row, linkCount: counts.get(row.id) ?? 0 })),
    unfiledCount: counts.get(null) ?? 0,
    totalCount: total,
  };
}

export async function createProject(deps: ProjectsDeps, access: Access, input: { name: string }): Promise<Project> {
  const name = checkName(input.name);
  await ensureNameFree(deps, name);
  const now = deps.clock.now();
  const row: ProjectRow = { id: newId('prj'), name, createdAt: now, updatedAt: now };
  const audit = auditEntry(access, 'project.create', { type: 'project', id: row.id }, ['name'], now);
  await written(deps.stores.projects.insert(row, audit), name);
  return { ...row, linkCount: 0 };
}

/** Renames a project; links show the new name at once (projectName is looked up, not copied). */
export async function renameProject(
  deps: ProjectsDeps,
  access: Access,
  id: string,
  input: { name: string },
): Promise<Project> {
  const current = await getProjectRowOrThrow(deps, access, id);
  const name = checkName(input.name);
  await ensureNameFree(deps, name, id);
  let renamed = current;
  if (name !== current.name) {
    renamed = { ...current, name, updatedAt: Math.max(deps.clock.now(), current.updatedAt) };
    const audit = auditEntry(access, 'project.update', { type: 'project', id }, ['name'], deps.clock.now());
    await written(deps.stores.projects.rename(id, name, renamed.updatedAt, audit), name);
  }
  return { ...renamed, linkCount: await deps.stores.links.countInProject(id, linkFilter(access)) };
}

export async function deleteProject(
  deps: ProjectsDeps,
  access: Access,
  id: string,
): Promise<{ id: string; deleted: true; unfiledLinks: number }> {
  await getProjectRowOrThrow(deps, access, id);
  // The links are unfiled in the transaction that deletes the project: both happen, or neither.
  // One entry, the project's: its links' unfiling is what a project's deletion means.
  const audit = auditEntry(access, 'project.delete', { type: 'project', id }, [], deps.clock.now());
  const unfiled = await deps.stores.projects.deleteUnfiling(id, deps.clock.now(), audit);
  await deps.linksUnfiled(unfiled);
  return { id, deleted: true, unfiledLinks: unfiled.length };
}
