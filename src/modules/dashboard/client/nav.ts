/**
 * The main navigation, in order. A section gets an entry here once its page exists (see
 * routes.ts); `current` says which paths highlight it.
 */
import type { Powers } from './lib/powers';

export interface NavItem {
  href: string;
  label: string;
  current(path: string): boolean;
  /** Only for those who may change links (not viewers). */
  changes?: boolean;
}

export const NAV_ITEMS: NavItem[] = [
  { href: '/app', label: 'Links', current: (p) => p === '/app' || p.startsWith('/app/links/') },
  { href: '/app/stats', label: 'Statistics', current: (p) => p === '/app/stats' },
  { href: '/app/projects', label: 'Projects', current: (p) => p === '/app/projects' },
  { href: '/app/tags', label: 'Tags', current: (p) => p === '/app/tags' },
  { href: '/app/bulk', label: 'Bulk create', current: (p) => p === '/app/bulk', changes: true },
  { href: '/app/settings', label: 'Settings', current: (p) => p === '/app/settings' || p.startsWith('/app/settings/') },
];

export interface SettingsItem {
  href: string;
  label: string;
  /** What the page is for, on the settings index (/app/settings). */
  about: string;
  adminOnly?: boolean;
}

export const SETTINGS_ITEMS: SettingsItem[] = [
  { href: '/app/settings/keys', label: 'API keys', about: 'Create and revoke keys for the API.' },
  {
    href: '/app/settings/domains',
    label: 'Domains',
    about: 'The domains short links live on, whether requests reach them, and what each answers besides links.',
    adminOnly: true,
  },
  {
    href: '/app/settings/webhooks',
    label: 'Webhooks',
    about: 'Send clicks and link changes to your own services, and see each delivery.',
    adminOnly: true,
  },
  { href: '/app/settings/sessions', label: 'Sessions', about: 'Where your account is signed in; sign out anywhere.' },
  { href: '/app/settings/account', label: 'Password', about: "Change your account's password." },
  { href: '/app/settings/workspace', label: 'Workspace', about: "The workspace's name and hosts." },
  {
    href: '/app/settings/accounts',
    label: 'Accounts',
    about: 'Create, disable and enable the accounts of this workspace.',
    adminOnly: true,
  },
  {
    href: '/app/settings/import',
    label: 'Import',
    about: 'Bring links and their clicks from Shlink, Bitly, Kutt, YOURLS, Dub, a CSV file or another Slink.',
    adminOnly: true,
  },
  {
    href: '/app/settings/audit',
    label: 'Audit log',
    about: 'Who changed what, through what and when, for the last 365 days.',
    adminOnly: true,
  },
];

/** The settings pages an account may open. */
export const settingsItemsFor = (powers: Powers): SettingsItem[] =>
  SETTINGS_ITEMS.filter((item) => !item.adminOnly || powers.admin);

/** The main navigation an account may use. */
export const navItemsFor = (powers: Powers): NavItem[] => NAV_ITEMS.filter((item) => !item.changes || powers.change);
