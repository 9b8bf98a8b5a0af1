/** Small hooks every page uses: delayed spinners, loaded data, the document title. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, toApiError } from '../api/client';
import { holdUnsaved } from '../router';

/** True once `active` has lasted `ms`: a fast answer never flashes a spinner. */
export function useDelayed(active: boolean, ms = 300): boolean {
  const [late, setLate] = useState(false);
  useEffect(() => {
    if (!active) {
      setLate(false);
      return;
    }
    const timer = setTimeout(() => setLate(true), ms);
    return () => clearTimeout(timer);
  }, [active, ms]);
  return late;
}

export interface Resource<T> {
  data: T | undefined;
  error: ApiError | null;
  loading: boolean;
  reload(): void;
  /** Replace the data in place (after a change the server confirmed). */
  set(data: T): void;
}

/** Loads `load()` now and whenever `deps` change; answers of superseded loads are dropped. */
export function useResource<T>(load: () => Promise<T>, deps: unknown[]): Resource<T> {
  const [state, setState] = useState<{ data?: T; error: ApiError | null; loading: boolean }>({
    error: null,
    loading: true,
  });
  const generation = useRef(0);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true, error: null }));
    load().then(
      (data) => mine === generation.current && setState({ data, error: null, loading: false }),
      (err) => mine === generation.current && setState((s) => ({ ...s, error: toApiError(err), loading: false })),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  const set = useCallback((data: T) => setState({ data, error: null, loading: false }), []);
  return { data: state.data, error: state.error, loading: state.loading, reload, set };
}

export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Slink`;
  }, [title]);
}

/** A one-off change (revoke, end, disable): its error, if any, for the page to show. */
export function useAction(): { error: ApiError | null; run(change: () => Promise<unknown>): Promise<boolean> } {
  const [error, setError] = useState<ApiError | null>(null);
  const run = useCallback(async (change: () => Promise<unknown>) => {
    setError(null);
    try {
      await change();
      return true;
    } catch (err) {
      setError(toApiError(err));
      return false;
    }
  }, []);
  return { error, run };
}

export interface Submission {
  busy: boolean;
  error: ApiError | null;
  setError(error: ApiError | null): void;
  /** The form's onSubmit: runs the action, keeps the button busy meanwhile, keeps its error. */
  submit(event: Event): Promise<void>;
}

/** A form's sending state: one request at a time, and the API's error when it fails. */
export function useSubmit(action: () => Promise<unknown>): Submission {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, submit };
}

/**
 * A ref for a heading that takes the focus whenever `key` changes to something set: a result
 * that appears below a form is where keyboard and screen reader users continue.
 */
export function useFocusOn<T extends HTMLElement>(key: unknown) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (!key) return;
    // After this render's other effects: a modal dialog closed by them still holds the page
    // inert until then, and focus() on anything outside it would do nothing.
    const timer = setTimeout(() => ref.current?.focus());
    return () => clearTimeout(timer);
  }, [key]);
  return ref;
}

/**
 * Reads a resource again without marking it loading (a poll): the page keeps showing what it
 * has, and the answer replaces it only if nothing else was asked for meanwhile (`key`: the
 * query it was asked with, e.g. the statistics' window).
 */
export function useQuietRefresh<T>(resource: Resource<T>, load: () => Promise<T>, key: string): () => void {
  const current = useRef({ key, resource, load });
  current.current = { key, resource, load };
  return useCallback(() => {
    const { key: asked, resource: r, load: read } = current.current;
    if (r.loading) return;
    read().then(
      (data) =>
        current.current.key === asked && !current.current.resource.loading && current.current.resource.set(data),
      // The next poll tries again; a normal load shows its own errors.
      () => {},
    );
  }, []);
}

/**
 * While `dirty` (the form was edited since it was loaded or last saved), leaving the page asks
 * first: an in-app navigation and a page unload alike (router.ts holdUnsaved).
 */
export function useUnsavedGuard(dirty: boolean): void {
  const current = useRef(dirty);
  current.current = dirty;
  useEffect(() => holdUnsaved(() => current.current), []);
}

/**
 * A ref for a form that, each time a submission fails, moves focus to its first field in error
 * (else to its error alert) and scrolls it into view: on a long form the message may sit far
 * from the button the person just pressed. Its error text is read with it (aria-describedby).
 */
export function useErrorFocus<T extends HTMLElement>(error: ApiError | null) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (!error || !ref.current) return;
    const target =
      ref.current.querySelector<HTMLElement>('[aria-invalid="true"]') ??
      ref.current.querySelector<HTMLElement>('.field-error, .alert.error');
    if (!target) return;
    // A field in a folded section ("More options") is unfolded first: a hidden one takes no focus.
    const folded = target.closest('details');
    if (folded && !folded.open) folded.open = true;
    if (!target.matches('input, select, textarea, button')) target.tabIndex = -1;
    target.focus({ preventScroll: true });
    target.scrollIntoView({ block: 'center' });
  }, [error]);
  return ref;
}
