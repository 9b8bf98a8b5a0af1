/**
 * A list read a page at a time with the API's cursors: the first page whenever `key` changes,
 * the next on demand. Answers for an older key are dropped, so a quick change of window never
 * mixes two windows' rows.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, toApiError } from '../api/client';
import type { Page } from '../api/types';

export interface PagedList<T> {
  items: T[];
  /** Set while there is a next page. */
  cursor: string | null;
  loading: boolean;
  error: ApiError | null;
  more(): void;
  retry(): void;
}

export function usePagedList<T>(fetchPage: (cursor: string | null) => Promise<Page<T>>, key: string): PagedList<T> {
  const [state, setState] = useState<{ items: T[]; cursor: string | null }>({ items: [], cursor: null });
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<ApiError | null>(null);
  const current = useRef(key);
  const read = useRef(fetchPage);
  read.current = fetchPage;

  const load = useCallback(async (forKey: string, after: string | null) => {
    setLoading(true);
    setError(null);
    try {
      const page = await read.current(after);
      if (forKey !== current.current) return;
      setState((s) => ({ items: after === null ? page.items : [...s.items, ...page.items], cursor: page.cursor }));
    } catch (err) {
      if (forKey === current.current) setError(toApiError(err));
    } finally {
      if (forKey === current.current) setLoading(false);
    }
  }, []);

  useEffect(() => {
    current.current = key;
    load(key, null);
  }, [key, load]);

  const { items, cursor } = state;
  return {
    items,
    cursor,
    loading,
    error,
    more: () => load(key, cursor),
    retry: () => load(key, items.length ? cursor : null),
  };
}
