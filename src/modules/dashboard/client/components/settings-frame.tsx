/** Settings pages share a heading and a secondary navigation between them. */
import type { ComponentChildren } from 'preact';
import { usePageTitle } from '../lib/hooks';
import { powersOf } from '../lib/powers';
import { settingsItemsFor } from '../nav';
import { currentLocation } from '../router';
import { useSession } from '../session';

export function SettingsFrame({ title, children }: { title: string; children: ComponentChildren }) {
  usePageTitle(title);
  const { account } = useSession();
  const path = currentLocation().path;
  const items = settingsItemsFor(powersOf(account));
  return (
    <div class="settings">
      <nav aria-label="Settings" class="sub-nav">
        <ul>
          {items.map((item) => (
            <li key={item.href}>
              <a
                href={item.href}
                aria-current={item.href === path || path.startsWith(`${item.href}/`) ? 'page' : undefined}
              >
                {item.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <section class="settings-body">
        <h1>{title}</h1>
        {children}
      </section>
    </div>
  );
}
