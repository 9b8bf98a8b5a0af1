/**
 * What the projects module keeps, in its own words; one implementation per engine beside it.
 * Each write takes its audit entry (`audit`), written in the write's own transaction.
 */
import type { Audited } from '../audit/public';
import type { ProjectRow } from './table';

export type { ProjectRow };

export interface ProjectStore {
  find(id: string): Promise<ProjectRow | null>;
  /** Names are unique without regard to (ASCII) case. */
  findByName(name: string): Promise<ProjectRow | null>;
  /** Names of these projects by id (nulls skipped), in one query: a page of links shows each link's project name. */
  names(ids: Iterable<string | null>): Promise<Map<string, string>>;
  /** Every project, by name (ASCII case folded), then id. */
  list(): Promise<ProjectRow[]>;
  /** Throws a unique violation (db/storage.ts isUniqueViolation) when the name is taken meanwhile. */
  insert(row: ProjectRow, audit?: Audited): Promise<void>;
  rename(id: string, name: string, updatedAt: number, audit?: Audited): Promise<void>;
  /**
   * Deletes the project and unfiles its links (their updatedAt set to `now`) in one transaction:
   * both happen, or neither. Returns the ids of the links unfiled.
   */
  deleteUnfiling(id: string, now: number, audit?: Audited): Promise<string[]>;
}

/** The ids of a list of project ids worth looking up: each once, nulls dropped. */
export function projectIdsOf(ids: Iterable<string | null>): string[] {
  return [...new Set(ids)].filter((id): id is string => id !== null);
}
