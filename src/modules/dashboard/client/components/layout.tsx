/**
 * The signed-in frame: a skip link, the top bar with the main navigation and the account, and
 * the <main> region, which takes focus after every in-app navigation so screen readers and
 * keyboard users start at the new page's content.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { powersOf } from '../lib/powers';
import { navItemsFor } from '../nav';
import { navigate } from '../router';
import { useSession } from '../session';

export function Layout({ path, children }: { path: string; children: ComponentChildren }) {
  const { account, signOut } = useSession();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else main.current?.focus();
  }, [path]);
  const leave = async () => {
    await signOut();
    navigate('/app/sign-in');
  };
  return (
    <div class="frame">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href="/app">
          Slink
        </a>
        <nav aria-label="Main" class="main-nav">
          <ul>
            {navItemsFor(powersOf(account)).map((item) => (
              <li key={item.href}>
                <a href={item.href} aria-current={item.current(path) ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="account">
          <span class="account-email">{account?.email}</span>
          <button type="button" class="button small secondary" onClick={leave}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

/** The frame of the pages before sign-in: one centred card. */
export function AuthLayout({ children }: { children: ComponentChildren }) {
  return (
    <main id="main" class="auth" tabIndex={-1}>
      <div class="auth-card">
        <p class="brand">Slink</p>
        {children}
      </div>
    </main>
  );
}
