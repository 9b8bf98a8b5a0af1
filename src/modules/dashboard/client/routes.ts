/**
 * Every dashboard page: its path pattern, its component (one file under pages/) and who may
 * see it. A new page is one entry here (and one in nav.ts if it belongs in the navigation).
 */
import type { FunctionComponent } from 'preact';
import { matchPath } from './lib/paths';
import type { PageProps } from './pages/page';
import { SetupPage } from './pages/setup';
import { SignInPage } from './pages/sign-in';

export type Access = 'public' | 'signed-in' | 'superuser';

export interface Route {
  path: string;
  page: FunctionComponent<PageProps>;
  access: Access;
}

export const ROUTES: Route[] = [
  { path: '/app/sign-in', page: SignInPage, access: 'public' },
  { path: '/app/setup', page: SetupPage, access: 'public' },
];

export function findRoute(path: string): { route: Route; params: Record<string, string> } | null {
  for (const route of ROUTES) {
    const params = matchPath(route.path, path);
    if (params) return { route, params };
  }
  return null;
}
