/** What the analytics module needs: reading links (the links module's), its own store and the export runner. */
import type { LinksDeps } from '../links/public';
import type { Exports } from './export-chunks';
import type { AnalyticsStore } from './store';

export interface AnalyticsDeps extends LinksDeps {
  stores: LinksDeps['stores'] & { readonly analytics: AnalyticsStore };
  /** Runs CSV exports (the engine's way); close() ends them. */
  exports: Exports;
}
