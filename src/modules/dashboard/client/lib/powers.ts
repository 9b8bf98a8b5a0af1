/**
 * What the signed-in person may do, read from their role and project limit (GET
 * /api/app/session), so that the dashboard shows only what they may use: the API refuses the
 * rest anyway (docs/behaviour.md, "Who may do what"); hiding it spares a person buttons that
 * can only fail.
 */
import type { Account } from '../api/types';
import { useSession } from '../session';

export interface Powers {
  /** Create, change and delete links, variants, projects and tags (editors and admins). */
  change: boolean;
  /** Domains, webhooks, accounts, custom slugs. */
  admin: boolean;
  /** The projects the person is limited to; null for every project. */
  projects: readonly string[] | null;
}

export function powersOf(account: Pick<Account, 'role' | 'projects'> | null): Powers {
  const role = account?.role ?? 'viewer';
  return { change: role !== 'viewer', admin: role === 'admin', projects: account?.projects ?? null };
}

export function usePowers(): Powers {
  return powersOf(useSession().account);
}
