/**
 * The shapes the dashboard reads. /api/v1 types come from the server's own schemas (type-only
 * imports: nothing of the server is bundled); /api/app shapes follow the dashboard's contract.
 */
export type { Breakdowns, Click, Stats, WorkspaceStats } from '../../../analytics/model';
export type { Link, LinkSort } from '../../../links/model';
export type { Project } from '../../../projects/model';
export type { Variant } from '../../../variants/model';
export type { Workspace } from '../../../workspace/model';

export type LinkStatus = 'active' | 'paused' | 'archived';

export interface Account {
  id: string;
  email: string;
  superuser: boolean;
}

export interface SignedIn {
  account: Account;
  session: { id: string; expiresAt: number };
}

export interface SessionItem {
  id: string;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  userAgent: string | null;
  current: boolean;
}

export type KeyScope = 'read' | 'write';

export interface KeyItem {
  id: string;
  name: string | null;
  prefix: string;
  scope: KeyScope;
  status: 'active' | 'expired' | 'revoked';
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
}

export interface AccountItem {
  id: string;
  email: string;
  superuser: boolean;
  createdAt: number;
  lastSignInAt: number | null;
  disabledAt: number | null;
}

export interface Page<T> {
  items: T[];
  cursor: string | null;
}
