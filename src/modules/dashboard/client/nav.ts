/**
 * The main navigation, in order. A section gets an entry here once its page exists (see
 * routes.ts); `current` says which paths highlight it.
 */
export interface NavItem {
  href: string;
  label: string;
  current(path: string): boolean;
}

export const NAV_ITEMS: NavItem[] = [
  { href: '/app', label: 'Links', current: (p) => p === '/app' || p.startsWith('/app/links/') },
];
