/** What the imports module needs: the links' writer and stores, its own store, the history writer, the sources. */
import type { Logger } from '../../lib/log';
import type { DomainStore } from '../domains/public';
import type { LinksDeps } from '../links/public';
import type { HistoryWriter } from './history';
import type { ImportSource, SourceName, SourceOptions } from './source';
import type { ImportStore } from './store';

/** Builds a source from its name and options (the composition root knows every source). */
export type SourceFactory = (name: SourceName, options: SourceOptions) => ImportSource;

export interface ImportDeps extends LinksDeps {
  stores: LinksDeps['stores'] & { readonly imports: ImportStore; readonly domains: DomainStore };
  /** A domain's targets checked as a link's destination is (the domains module's DomainsDeps): a source's domains are made here. */
  checkTargetUrl(raw: string, field: string): void;
  log: Logger;
  /** Where a link's history goes (visits, days, totals); null: no history is stored. */
  history: HistoryWriter | null;
  sources: SourceFactory;
  /** This node's name (SLINK_NODE_ID), recorded with each run. */
  nodeId: string;
  /** Waits out a source's rate limit or a retry; injected so tests never sleep on the clock. */
  sleep: (ms: number) => Promise<void>;
  fetch: typeof fetch;
}
