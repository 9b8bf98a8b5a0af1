/**
 * A small history-API router: paths are matched against patterns like `/app/links/:id`, and
 * clicks on same-origin /app links are turned into navigations without a page load.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Location {
  path: string;
  query: URLSearchParams;
}

const listeners = new Set<() => void>();
const notify = () => {
  for (const listener of listeners) listener();
};

export function currentLocation(): Location {
  return {
    path: window.location.pathname.replace(/\/+$/, '') || '/',
    query: new URLSearchParams(window.location.search),
  };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', to);
  else {
    window.history.pushState(null, '', to);
    window.scrollTo(0, 0);
  }
  notify();
}

/** Re-renders the caller on every navigation (links, back and forward). */
export function useLocation(): Location {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const listener = () => setVersion((n) => n + 1);
    listeners.add(listener);
    window.addEventListener('popstate', listener);
    return () => {
      listeners.delete(listener);
      window.removeEventListener('popstate', listener);
    };
  }, []);
  return currentLocation();
}

/** Plain left clicks on <a href="/app/..."> navigate in place; anything else is the browser's. */
export function interceptLinks(root: Document): void {
  root.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element | null)?.closest?.('a');
    if (!anchor || anchor.target || anchor.hasAttribute('download')) return;
    const url = new URL(anchor.href, window.location.href);
    if (url.origin !== window.location.origin || !/^\/app(\/|$)/.test(url.pathname)) return;
    if (url.pathname.startsWith('/app/assets/')) return;
    // "#main" (the skip link) and other in-page anchors are the browser's: it moves focus.
    if (url.hash && url.pathname === window.location.pathname && url.search === window.location.search) return;
    event.preventDefault();
    navigate(url.pathname + url.search + url.hash);
  });
}
