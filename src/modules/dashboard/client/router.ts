/**
 * A small history-API router: paths are matched against patterns like `/app/links/:id`, and
 * clicks on same-origin /app links are turned into navigations without a page load. A form with
 * unsaved changes holds the person's own navigations (a link, Back and Forward) until they
 * confirm leaving; the app's own navigations (after a sign-out, a delete) are not asked about.
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

/** Each says whether a form on the page holds changes not saved yet. */
const unsaved = new Set<() => boolean>();
export const LEAVE_QUESTION = 'Leave this page? Your changes are not saved.';

/**
 * Registers a form's "has unsaved changes" test while it is shown; returns its removal. A page
 * unload (reload, closing the tab, another site) is asked by the browser's own beforeunload
 * prompt, an in-app navigation by the question above.
 */
export function holdUnsaved(dirty: () => boolean): () => void {
  unsaved.add(dirty);
  return () => unsaved.delete(dirty);
}

export const hasUnsaved = (): boolean => [...unsaved].some((dirty) => dirty());

/** True when nothing is unsaved, or the person confirmed leaving it. */
const mayLeave = () => !hasUnsaved() || window.confirm(LEAVE_QUESTION);

/** The address shown now: where Back or Forward returns when the person stays. */
let shown = '';
const here = () => window.location.pathname + window.location.search + window.location.hash;

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
  shown = here();
  notify();
}

/** Re-renders the caller on every navigation (links, back and forward). */
export function useLocation(): Location {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const listener = () => setVersion((n) => n + 1);
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, []);
  return currentLocation();
}

/** Plain left clicks on <a href="/app/..."> navigate in place; anything else is the browser's. */
export function interceptLinks(root: Document): void {
  shown = here();
  window.addEventListener('popstate', () => {
    // The address has already changed: staying puts the one shown back.
    if (here() !== shown && !mayLeave()) {
      window.history.pushState(null, '', shown);
      return;
    }
    shown = here();
    notify();
  });
  window.addEventListener('beforeunload', (event) => {
    if (!hasUnsaved()) return;
    // Both ways of asking for the browser's prompt (its own words: a page cannot choose them).
    event.preventDefault();
    event.returnValue = LEAVE_QUESTION;
  });
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
    if (mayLeave()) navigate(url.pathname + url.search + url.hash);
  });
}
