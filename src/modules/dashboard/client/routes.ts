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
import { DomainsPage } from './pages/settings/domains';
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

export type Access = 'public' | 'signed-in' | 'superuser';

export interface Route {
  path: string;
  page: FunctionComponent<PageProps>;
  access: Access;
}

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
  { path: '/app/bulk', page: BulkPage, access: 'signed-in' },
  { path: '/app/settings', page: SettingsIndexPage, access: 'signed-in' },
  { path: '/app/settings/keys', page: KeysPage, access: 'signed-in' },
  { path: '/app/settings/domains', page: DomainsPage, access: 'signed-in' },
  { path: '/app/settings/sessions', page: SessionsPage, access: 'signed-in' },
  { path: '/app/settings/account', page: AccountPage, access: 'signed-in' },
  { path: '/app/settings/webhooks', page: WebhooksPage, access: 'signed-in' },
  { path: '/app/settings/webhooks/:id', page: WebhookDeliveriesPage, access: 'signed-in' },
  { path: '/app/settings/workspace', page: WorkspacePage, access: 'signed-in' },
  { path: '/app/settings/accounts', page: AccountsPage, access: 'superuser' },
];

export function findRoute(path: string): { route: Route; params: Record<string, string> } | null {
  for (const route of ROUTES) {
    const params = matchPath(route.path, path);
    if (params) return { route, params };
  }
  return null;
}
