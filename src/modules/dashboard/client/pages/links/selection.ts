/** Which links of the list are selected for a bulk action: ids, kept across "Load more". */
import { useCallback, useState } from 'preact/hooks';

export interface Selection {
  ids: ReadonlySet<string>;
  has(id: string): boolean;
  toggle(id: string): void;
  /** Selects every id given, or (when all of them are selected already) none. */
  toggleAll(ids: string[]): void;
  clear(): void;
  /** Exactly these ids (the links a bulk action kept, still to be dealt with). */
  replace(ids: string[]): void;
}

export function useSelection(): Selection {
  const [ids, setIds] = useState<ReadonlySet<string>>(new Set());
  const toggle = useCallback(
    (id: string) =>
      setIds((before) => {
        const next = new Set(before);
        if (!next.delete(id)) next.add(id);
        return next;
      }),
    [],
  );
  const toggleAll = useCallback(
    (all: string[]) => setIds((before) => (all.every((id) => before.has(id)) ? new Set() : new Set(all))),
    [],
  );
  const clear = useCallback(() => setIds(new Set()), []);
  const replace = useCallback((next: string[]) => setIds(new Set(next)), []);
  return { ids, has: (id) => ids.has(id), toggle, toggleAll, clear, replace };
}
