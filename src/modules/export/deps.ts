/** What the export reads: links as the API shows them, the domains and projects, and raw clicks (in the export Worker). */
import type { Logger } from '../../lib/log';
import type { AnalyticsStore, Exports } from '../analytics/public';
import type { DomainStore } from '../domains/public';
import type { LinkReadDeps } from '../links/public';

export interface ExportDeps extends LinkReadDeps {
  stores: LinkReadDeps['stores'] & { readonly domains: DomainStore; readonly analytics: AnalyticsStore };
  /** The export Worker (analytics' ExportHost), where the click lines are read and written. */
  exports: Exports;
  log: Logger;
}
