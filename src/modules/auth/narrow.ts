/**
 * What an account change does to the account and its keys, the same on both engines (the stores
 * run it inside the change's transaction): whether it would leave no active admin, and how each
 * key is narrowed so that none keeps more than its account now has.
 */
import type { AccountChange, AccountRow, ApiKeyRow } from './store';

export function applied(row: AccountRow, change: AccountChange): AccountRow {
  return {
    ...row,
    role: change.role ?? row.role,
    projects: change.projects === undefined ? row.projects : change.projects,
    disabledAt: change.disabledAt === undefined ? row.disabledAt : change.disabledAt,
  };
}

const activeAdmin = (row: Pick<AccountRow, 'role' | 'disabledAt'>) => row.role === 'admin' && row.disabledAt === null;

/** Whether the change takes away an active admin: then another must remain. */
export function losesAdmin(before: AccountRow, after: AccountRow): boolean {
  return activeAdmin(before) && !activeAdmin(after);
}

/** A new viewer's write keys act as read from now on, and say so (a create key stays create: it was meant for a form). */
export function demotesKeys(before: AccountRow, after: AccountRow): boolean {
  return after.role === 'viewer' && before.role !== 'viewer';
}

/**
 * A key's own project limit within its account's new one, or undefined when it stays as it is.
 * A key without a limit of its own already follows its account's (access/ intersects them).
 */
export function narrowedProjects(
  key: Pick<ApiKeyRow, 'projects'>,
  accountProjects: readonly string[] | null,
): string[] | undefined {
  if (key.projects === null || accountProjects === null) return undefined;
  const kept = key.projects.filter((id) => accountProjects.includes(id));
  return kept.length === key.projects.length ? undefined : kept;
}
