/**
 * Every dashboard page: its path pattern, its component (one file under pages/) and who may
 * see it. A new page is one entry here (and one in nav.ts if it belongs in the navigation).
 */
import type { FunctionComponent } from 'preact';
import { matchPath } from './lib/paths';
import { BulkPage } from './pages/bulk';
import { InvitePage } from './pages/invite';
import { LinkPage } from './pages/link';
import { LinkStatsPage } from './pages/link-stats';
import { LinksPage } from './pages/links';
import type { PageProps } from './pages/page';
import { ProjectsPage } from './pages/projects';
import { AccountPage } from './pages/settings/account';
import { AccountsPage } from './pages/settings/accounts';
import { AuditPage } from './pages/settings/audit';
import { DomainsPage } from './pages/settings/domains';
import { ImportPage } from './pages/settings/import';
import { SettingsIndexPage } from './pages/settings/index';
import { KeysPage } from './pages/settings/keys';
import { SessionsPage } from './pages/settings/sessions';
import { WebhookDeliveriesPage } from './pages/settings/webhook-deliveries';
import { WebhooksPage } from './pages/settings/webhooks';
import { WorkspacePage } from './pages/settings/workspace';
import { SetupPage } from './pages/setup';
import { SignInPage } from './pages/sign-in';
import { StatsPage } from './pages/stats';
import { TagsPage } from './pages/tags';

/** Who may open a page: anyone, anyone signed in, those who may change links, admins. */
export type Access = 'public' | 'signed-in' | 'changes' | 'admin';

export interface Route {
  path: string;
  page: FunctionComponent<PageProps>;
  access: Access;
  /** What the page is for, said to someone it is not for ("Only admins can ..."). */
  only?: string;
}

const ADMINS_DOMAINS = 'Only admins can manage short domains';
const ADMINS_WEBHOOKS = 'Only admins can manage webhooks';

export const ROUTES: Route[] = [
  { path: '/app/sign-in', page: SignInPage, access: 'public' },
  { path: '/app/setup', page: SetupPage, access: 'public' },
  { path: '/app/invite/:token', page: InvitePage, access: 'public' },
  { path: '/app', page: LinksPage, access: 'signed-in' },
  { path: '/app/links/:id', page: LinkPage, access: 'signed-in' },
  { path: '/app/links/:id/stats', page: LinkStatsPage, access: 'signed-in' },
  { path: '/app/stats', page: StatsPage, access: 'signed-in' },
  { path: '/app/projects', page: ProjectsPage, access: 'signed-in' },
  { path: '/app/tags', page: TagsPage, access: 'signed-in' },
  { path: '/app/bulk', page: BulkPage, access: 'changes', only: 'Only editors and admins can create links' },
  { path: '/app/settings', page: SettingsIndexPage, access: 'signed-in' },
  { path: '/app/settings/keys', page: KeysPage, access: 'signed-in' },
  { path: '/app/settings/domains', page: DomainsPage, access: 'admin', only: ADMINS_DOMAINS },
  { path: '/app/settings/sessions', page: SessionsPage, access: 'signed-in' },
  { path: '/app/settings/account', page: AccountPage, access: 'signed-in' },
  { path: '/app/settings/webhooks', page: WebhooksPage, access: 'admin', only: ADMINS_WEBHOOKS },
  { path: '/app/settings/webhooks/:id', page: WebhookDeliveriesPage, access: 'admin', only: ADMINS_WEBHOOKS },
  { path: '/app/settings/workspace', page: WorkspacePage, access: 'signed-in' },
  { path: '/app/settings/accounts', page: AccountsPage, access: 'admin', only: 'Only admins can manage accounts' },
  { path: '/app/settings/import', page: ImportPage, access: 'admin', only: 'Only admins can import links' },
  { path: '/app/settings/audit', page: AuditPage, access: 'admin', only: 'Only admins can read the audit log' },
];

export function findRoute(path: string): { route: Route; params: Record<string, string> } | null {
  for (const route of ROUTES) {
    const params = matchPath(route.path, path);
    if (params) return { route, params };
  }
  return null;
}
