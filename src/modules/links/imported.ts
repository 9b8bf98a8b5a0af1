/**
 * A link's imported history as the API shows it (the Link's `imported`), from its counters'
 * imported columns (table.ts link_counters), which the import's history writer keeps
 * (imports/history).
 */
import type { ImportedHistory } from './model';

/** The counters' imported columns as one field: null when no import fed the link. */
export function importedOf(r: {
  importedSource?: string | null;
  importedAt?: number | null;
  importedHistory?: string | null;
  importedClicks?: number | null;
}): ImportedHistory | null {
  if (r.importedSource === null || r.importedSource === undefined) return null;
  return {
    source: r.importedSource,
    at: r.importedAt ?? 0,
    history: (r.importedHistory ?? 'none') as ImportedHistory['history'],
    clicks: r.importedClicks ?? 0,
  };
}
