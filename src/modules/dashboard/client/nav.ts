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
  { href: '/app/stats', label: 'Statistics', current: (p) => p === '/app/stats' },
  { href: '/app/projects', label: 'Projects', current: (p) => p === '/app/projects' },
  { href: '/app/tags', label: 'Tags', current: (p) => p === '/app/tags' },
  { href: '/app/bulk', label: 'Bulk create', current: (p) => p === '/app/bulk' },
  { href: '/app/settings/keys', label: 'Settings', current: (p) => p.startsWith('/app/settings/') },
];

export interface SettingsItem {
  href: string;
  label: string;
  superuserOnly?: boolean;
}

export const SETTINGS_ITEMS: SettingsItem[] = [
  { href: '/app/settings/keys', label: 'API keys' },
  { href: '/app/settings/webhooks', label: 'Webhooks' },
  { href: '/app/settings/sessions', label: 'Sessions' },
  { href: '/app/settings/account', label: 'Password' },
  { href: '/app/settings/workspace', label: 'Workspace' },
  { href: '/app/settings/accounts', label: 'Accounts', superuserOnly: true },
];
